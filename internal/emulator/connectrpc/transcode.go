package connectrpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Transcoder serves the RPCs of some protobuf services in every codec and
// protocol that connect-go's handlers serve by default (the Connect protocol
// with the proto codec, gRPC and gRPC-Web, with gzip), as envd does, on top of
// a handler that speaks only Connect with the JSON codec. It is connect-go's
// own handlers, built from the services' descriptors: each request message is
// turned into proto-JSON and handed to the JSON handler, and each answer it
// writes is turned back into a message. The JSON handler stays the one
// implementation of every RPC.
type Transcoder struct {
	mux     *http.ServeMux
	methods map[string]protoreflect.MethodDescriptor // by procedure: "/process.Process/Start"
}

// jsonCall is what a connect-go handler needs of the request it serves: the
// request itself (its headers carry the caller's identity) and the JSON
// handler to turn it into.
type jsonCall struct {
	r    *http.Request
	next http.Handler
}

type jsonCallKey struct{}

// NewTranscoder compiles the protobuf sources (import path to text; the
// well-known types are built in) and serves every method of their services.
// Bidirectional streams are left out: they would need HTTP/2 end to end.
func NewTranscoder(sources map[string]string) (*Transcoder, error) {
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	compiler := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(sources),
	})}
	files, err := compiler.Compile(context.Background(), names...)
	if err != nil {
		return nil, fmt.Errorf("compile %v: %w", names, err)
	}
	t := &Transcoder{mux: http.NewServeMux(), methods: map[string]protoreflect.MethodDescriptor{}}
	for _, f := range files {
		for i := 0; i < f.Services().Len(); i++ {
			svc := f.Services().Get(i)
			for j := 0; j < svc.Methods().Len(); j++ {
				t.handle(svc.Methods().Get(j))
			}
		}
	}
	return t, nil
}

// Procedures are the methods served, sorted: "/process.Process/Start".
func (t *Transcoder) Procedures() []string {
	out := make([]string, 0, len(t.methods))
	for p := range t.methods {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (t *Transcoder) handle(m protoreflect.MethodDescriptor) {
	procedure := "/" + string(m.Parent().FullName()) + "/" + string(m.Name())
	opts := []connect.HandlerOption{
		connect.WithSchema(m),
		connect.WithRequestInitializer(newInput),
		// The same bound as the JSON path's: a message, compressed or not, of at most MaxMessageSize.
		connect.WithReadMaxBytes(MaxMessageSize),
	}
	var h http.Handler
	switch {
	case m.IsStreamingClient() && m.IsStreamingServer():
		return
	case m.IsStreamingServer():
		h = connect.NewServerStreamHandler(procedure, serverStream(m), opts...)
	case m.IsStreamingClient():
		h = connect.NewClientStreamHandler(procedure, clientStream(m), opts...)
	default:
		h = connect.NewUnaryHandler(procedure, unary(m), opts...)
	}
	t.mux.Handle(procedure, h)
	t.methods[procedure] = m
}

// Serve answers r, whose codec or protocol is not Connect's JSON, through
// next, which answers it in Connect's JSON. An unknown method is answered 404,
// as a connect-go service handler answers it.
func (t *Transcoder) Serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	ctx := context.WithValue(r.Context(), jsonCallKey{}, jsonCall{r: r, next: next})
	t.mux.ServeHTTP(w, r.WithContext(ctx))
}

// ServedAsJSON reports whether r is what the JSON handlers read: Connect
// with the JSON codec (unary or streaming), uncompressed. No Content-Type
// counts as JSON, as the JSON path has always read it. Everything else is the
// Transcoder's, gzip-compressed JSON too.
func ServedAsJSON(r *http.Request) bool {
	ct := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Type")))
	if ct != "" && !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "application/connect+json") {
		return false
	}
	for _, h := range []string{"Content-Encoding", "Connect-Content-Encoding"} {
		if enc := r.Header.Get(h); enc != "" && enc != "identity" {
			return false
		}
	}
	return true
}

func newInput(spec connect.Spec, msg any) error {
	dm, ok := msg.(*dynamicpb.Message)
	md, isMethod := spec.Schema.(protoreflect.MethodDescriptor)
	if !ok || !isMethod {
		return fmt.Errorf("no descriptor for %T", msg)
	}
	*dm = *dynamicpb.NewMessage(md.Input())
	return nil
}

// inner is the JSON request that stands for the call: the caller's headers,
// the JSON body and Content-Type, no compression, and the call's deadline as
// Connect-Timeout-Ms (gRPC sends it as grpc-timeout).
func (c jsonCall) inner(ctx context.Context, contentType string, body io.Reader) *http.Request {
	in := c.r.Clone(ctx)
	in.Body = io.NopCloser(body)
	in.ContentLength = -1
	for _, h := range []string{"Content-Encoding", "Connect-Content-Encoding", "Grpc-Encoding", "Connect-Timeout-Ms", "Grpc-Timeout"} {
		in.Header.Del(h)
	}
	in.Header.Set("Content-Type", contentType)
	if deadline, ok := ctx.Deadline(); ok {
		in.Header.Set("Connect-Timeout-Ms", strconv.FormatInt(max(1, time.Until(deadline).Milliseconds()), 10))
	}
	return in
}

func callOf(ctx context.Context) jsonCall {
	c, _ := ctx.Value(jsonCallKey{}).(jsonCall)
	return c
}

// toJSON is a request message in proto-JSON, refused past MaxMessageSize:
// the JSON path reads no more.
func toJSON(msg *dynamicpb.Message) ([]byte, error) {
	data, err := protojson.Marshal(msg)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("marshal request: %w", err))
	}
	if len(data) > MaxMessageSize {
		return nil, connect.NewError(connect.CodeResourceExhausted,
			fmt.Errorf("message size %d in JSON exceeds limit %d", len(data), MaxMessageSize))
	}
	return data, nil
}

// fromJSON is an answer of the JSON handler as a message of type out. An
// answer that E2B's message cannot hold is the emulator's fault: internal.
func fromJSON(data []byte, out protoreflect.MessageDescriptor) (*dynamicpb.Message, error) {
	msg := dynamicpb.NewMessage(out)
	if err := protojson.Unmarshal(data, msg); err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("answer is not a %s: %w", out.FullName(), err))
	}
	return msg, nil
}

// jsonError is the Connect error the JSON handler answered with.
func jsonError(data []byte) error {
	var e errorJSON
	if err := json.Unmarshal(data, &e); err != nil || e.Code == "" {
		return connect.NewError(connect.CodeUnknown, errors.New(strings.TrimSpace(string(data))))
	}
	var code connect.Code
	if err := code.UnmarshalText([]byte(e.Code)); err != nil {
		code = connect.CodeUnknown
	}
	return connect.NewError(code, errors.New(e.Message))
}

func envelope(payload []byte) []byte {
	out := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(out[1:], uint32(len(payload)))
	return append(out, payload...)
}

func unary(m protoreflect.MethodDescriptor) func(context.Context, *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
	return func(ctx context.Context, req *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
		body, err := toJSON(req.Msg)
		if err != nil {
			return nil, err
		}
		c := callOf(ctx)
		rec := &unaryRecorder{header: http.Header{}, status: http.StatusOK}
		c.next.ServeHTTP(rec, c.inner(ctx, "application/json", bytes.NewReader(body)))
		if rec.status != http.StatusOK {
			return nil, jsonError(rec.body.Bytes())
		}
		out, err := fromJSON(rec.body.Bytes(), m.Output())
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(out), nil
	}
}

func serverStream(m protoreflect.MethodDescriptor) func(context.Context, *connect.Request[dynamicpb.Message], *connect.ServerStream[dynamicpb.Message]) error {
	return func(ctx context.Context, req *connect.Request[dynamicpb.Message], stream *connect.ServerStream[dynamicpb.Message]) error {
		payload, err := toJSON(req.Msg)
		if err != nil {
			return err
		}
		c := callOf(ctx)
		rec := &streamRecorder{header: http.Header{}, out: m.Output(), send: stream.Send}
		c.next.ServeHTTP(rec, c.inner(ctx, "application/connect+json", bytes.NewReader(envelope(payload))))
		return rec.result(ctx)
	}
}

func clientStream(m protoreflect.MethodDescriptor) func(context.Context, *connect.ClientStream[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
	return func(ctx context.Context, stream *connect.ClientStream[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
		var answer *dynamicpb.Message
		rec := &streamRecorder{header: http.Header{}, out: m.Output(), send: func(msg *dynamicpb.Message) error {
			if answer != nil {
				return errors.New("a client stream answers one message")
			}
			answer = msg
			return nil
		}}
		c := callOf(ctx)
		c.next.ServeHTTP(rec, c.inner(ctx, "application/connect+json", &receivedJSON{stream: stream}))
		if err := rec.result(ctx); err != nil {
			return nil, err
		}
		if answer == nil {
			return nil, connect.NewError(connect.CodeInternal, errors.New("the stream ended without an answer"))
		}
		return connect.NewResponse(answer), nil
	}
}

// receivedJSON reads a client stream's messages as Connect JSON envelopes,
// receiving each when the JSON handler reads on (in its own goroutine, the
// handler's: a stream is not for concurrent use).
type receivedJSON struct {
	stream *connect.ClientStream[dynamicpb.Message]
	buf    []byte
	err    error
}

func (rj *receivedJSON) Read(p []byte) (int, error) {
	for len(rj.buf) == 0 {
		if rj.err != nil {
			return 0, rj.err
		}
		if !rj.stream.Receive() {
			rj.err = rj.stream.Err()
			if rj.err == nil {
				rj.err = io.EOF
			}
			continue
		}
		payload, err := toJSON(rj.stream.Msg())
		if err != nil {
			rj.err = err
			continue
		}
		rj.buf = envelope(payload)
	}
	n := copy(p, rj.buf)
	rj.buf = rj.buf[n:]
	return n, nil
}

// unaryRecorder keeps the JSON handler's unary answer.
type unaryRecorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (u *unaryRecorder) Header() http.Header { return u.header }

func (u *unaryRecorder) WriteHeader(status int) {
	if !u.wrote {
		u.status, u.wrote = status, true
	}
}

func (u *unaryRecorder) Write(p []byte) (int, error) {
	u.WriteHeader(http.StatusOK)
	return u.body.Write(p)
}

// streamRecorder reads the JSON handler's Connect stream as it is written:
// each message is sent on as a message of type out, the end-stream frame is
// kept as the call's result. A stream that is not a Connect stream (a unary
// error answer) is the call's error.
type streamRecorder struct {
	header http.Header
	status int
	out    protoreflect.MessageDescriptor
	send   func(*dynamicpb.Message) error
	buf    []byte
	ended  bool
	err    error // the end-stream frame's error, or the one that stopped the stream
}

func (s *streamRecorder) Header() http.Header { return s.header }

func (s *streamRecorder) WriteHeader(status int) {
	if s.status == 0 {
		s.status = status
	}
}

func (s *streamRecorder) Flush() {}

func (s *streamRecorder) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	if s.ended {
		return 0, errors.New("stream already ended")
	}
	s.buf = append(s.buf, p...)
	if s.status != http.StatusOK || !strings.HasPrefix(s.header.Get("Content-Type"), "application/connect+json") {
		return len(p), nil // an error answer, read whole by result
	}
	for len(s.buf) >= 5 {
		n := int(binary.BigEndian.Uint32(s.buf[1:5]))
		if len(s.buf) < 5+n {
			break
		}
		flags, payload := s.buf[0], s.buf[5:5+n]
		s.buf = s.buf[5+n:]
		if flags&FlagEndStream != 0 {
			s.ended = true
			s.err = endStreamError(payload)
			return len(p), nil
		}
		msg, err := fromJSON(payload, s.out)
		if err == nil {
			err = s.send(msg)
		}
		if err != nil {
			s.ended, s.err = true, err
			return 0, err
		}
	}
	return len(p), nil
}

func endStreamError(payload []byte) error {
	var end endStreamJSON
	if err := json.Unmarshal(payload, &end); err != nil {
		return connect.NewError(connect.CodeInternal, fmt.Errorf("end-stream frame: %w", err))
	}
	if end.Error == nil {
		return nil
	}
	data, _ := json.Marshal(end.Error)
	return jsonError(data)
}

// result is the call's outcome once the JSON handler returned: the end-stream
// frame's error; a unary-style error answer's; or, when the handler left
// without ending the stream, the context's (the caller left or the deadline
// passed).
func (s *streamRecorder) result(ctx context.Context) error {
	switch {
	case s.ended:
		return s.err
	case s.status != 0 && s.status != http.StatusOK:
		return jsonError(s.buf)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, ctx.Err())
	case ctx.Err() != nil:
		return connect.NewError(connect.CodeCanceled, ctx.Err())
	}
	return nil
}
