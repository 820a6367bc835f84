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
// Bidirectional streams (envd's services have none) are not served.
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
