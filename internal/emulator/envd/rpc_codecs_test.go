package envd_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// envdRPC calls envd's RPCs with connect-go's own client, as a Go program
// built on E2B's .proto files does: messages are dynamic messages of those
// files, the protocol and codec those of the client's options (none: Connect
// with the proto codec, connect-go's default).
type envdRPC struct {
	t       *testing.T
	methods map[string]protoreflect.MethodDescriptor // "process.Process/Start"
	called  map[string]bool
	hc      *http.Client
	base    string
	opts    []connect.ClientOption
}

// withHeaders adds a sandbox's envd headers to every request.
type withHeaders struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

func newEnvdRPC(t *testing.T, c *emulatortest.Client, sb emulatortest.Sandbox, transport http.RoundTripper, opts ...connect.ClientOption) *envdRPC {
	t.Helper()
	compiler := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(e2bspec.EnvdProtos()),
	})}
	files, err := compiler.Compile(t.Context(), "process/process.proto", "filesystem/filesystem.proto")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]protoreflect.MethodDescriptor{}
	for _, f := range files {
		for i := 0; i < f.Services().Len(); i++ {
			svc := f.Services().Get(i)
			for j := 0; j < svc.Methods().Len(); j++ {
				m := svc.Methods().Get(j)
				methods[string(svc.FullName())+"/"+string(m.Name())] = m
			}
		}
	}
	if transport == nil {
		transport = http.DefaultTransport
	}
	hc := &http.Client{Transport: withHeaders{headers: emulatortest.EnvdHeaders(sb), next: transport}}
	return &envdRPC{t: t, methods: methods, called: map[string]bool{}, hc: hc, base: c.Srv.SandboxURL(), opts: opts}
}

func initResponse(spec connect.Spec, msg any) error {
	dm, ok := msg.(*dynamicpb.Message)
	md, isMethod := spec.Schema.(protoreflect.MethodDescriptor)
	if !ok || !isMethod {
		return errors.New("not a dynamic message")
	}
	*dm = *dynamicpb.NewMessage(md.Output())
	return nil
}

func (e *envdRPC) client(method string) (*connect.Client[dynamicpb.Message, dynamicpb.Message], protoreflect.MethodDescriptor) {
	e.t.Helper()
	md := e.methods[method]
	if md == nil {
		e.t.Fatalf("no method %s in E2B's .proto files", method)
	}
	e.called[method] = true
	opts := append([]connect.ClientOption{connect.WithSchema(md), connect.WithResponseInitializer(initResponse)}, e.opts...)
	return connect.NewClient[dynamicpb.Message, dynamicpb.Message](e.hc, e.base+"/"+method, opts...), md
}

// message is a message of type md made from its proto-JSON form (the wire
// carries it in the client's codec).
func (e *envdRPC) message(md protoreflect.MessageDescriptor, jsonText string) *dynamicpb.Message {
	e.t.Helper()
	msg := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(jsonText), msg); err != nil {
		e.t.Fatalf("%s from %s: %v", md.FullName(), jsonText, err)
	}
	return msg
}

// asMap is a received message in proto-JSON, to compare.
func asMap(t *testing.T, msg *dynamicpb.Message) map[string]any {
	t.Helper()
	data, err := protojson.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *envdRPC) unary(method, req string) (map[string]any, http.Header, error) {
	e.t.Helper()
	cl, md := e.client(method)
	ctx, cancel := context.WithTimeout(e.t.Context(), 30*time.Second)
	defer cancel()
	res, err := cl.CallUnary(ctx, connect.NewRequest(e.message(md.Input(), req)))
	if err != nil {
		return nil, nil, err
	}
	return asMap(e.t, res.Msg), res.Header(), nil
}

func (e *envdRPC) mustUnary(method, req string) map[string]any {
	e.t.Helper()
	out, _, err := e.unary(method, req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, req, err)
	}
	return out
}

// stream opens a server stream, closed at the end of the test.
func (e *envdRPC) stream(method, req string) *connect.ServerStreamForClient[dynamicpb.Message] {
	e.t.Helper()
	cl, md := e.client(method)
	ctx, cancel := context.WithTimeout(e.t.Context(), 60*time.Second)
	e.t.Cleanup(cancel)
	st, err := cl.CallServerStream(ctx, connect.NewRequest(e.message(md.Input(), req)))
	if err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
	e.t.Cleanup(func() { _ = st.Close() })
	return st
}

func next(t *testing.T, st *connect.ServerStreamForClient[dynamicpb.Message]) map[string]any {
	t.Helper()
	if !st.Receive() {
		t.Fatalf("stream ended early: %v", st.Err())
	}
	return asMap(t, st.Msg())
}

// processOutput reads a process stream to its end: stdout, stderr (or the
// terminal's output) and the end event.
func processOutput(t *testing.T, st *connect.ServerStreamForClient[dynamicpb.Message]) (out string, end map[string]any) {
	t.Helper()
	for st.Receive() {
		ev := asMap(t, st.Msg())["event"].(map[string]any)
		if d, ok := ev["data"].(map[string]any); ok {
			for _, k := range []string{"stdout", "stderr", "pty"} {
				if s, ok := d[k].(string); ok {
					out += decodeB64(t, s)
				}
			}
		}
		if e, ok := ev["end"].(map[string]any); ok {
			end = e
		}
	}
	if st.Err() != nil {
		t.Fatalf("process stream: %v", st.Err())
	}
	return out, end
}

func decodeB64(t *testing.T, s string) string {
	t.Helper()
	var b []byte
	if err := json.Unmarshal([]byte(`"`+s+`"`), &b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantCode(t *testing.T, what string, err error, code connect.Code, msg string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code || !strings.Contains(ce.Message(), msg) {
		t.Fatalf("%s: %v, want %s containing %q", what, err, code, msg)
	}
}

// TestEnvdRPCsInEveryProtocolAndCodec: every process and filesystem RPC
// answers connect-go's default client (Connect with the proto codec) as envd
// does, and so do gRPC and gRPC-Web, which envd's connect-go handlers serve
// too, and Connect's JSON through connect-go's client.
func TestEnvdRPCsInEveryProtocolAndCodec(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	// gRPC clients speak HTTP/2 only: without TLS, with prior knowledge (h2c).
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(h2c.CloseIdleConnections)
	for _, tc := range []struct {
		name        string
		contentType string // of a unary answer
		transport   http.RoundTripper
		opts        []connect.ClientOption
	}{
		{"connect-proto", "application/proto", nil, nil},
		{"connect-json", "application/json", nil, []connect.ClientOption{connect.WithProtoJSON()}},
		{"grpc-h2c", "application/grpc", h2c, []connect.ClientOption{connect.WithGRPC()}},
		{"grpc-web", "application/grpc-web+proto", nil, []connect.ClientOption{connect.WithGRPCWeb()}},
		{"connect-proto-h2c", "application/proto", h2c, nil},
		{"connect-json-gzip", "application/json", nil, []connect.ClientOption{connect.WithProtoJSON(), connect.WithSendGzip()}},
		{"grpc-web-gzip", "application/grpc-web+proto", nil, []connect.ClientOption{connect.WithGRPCWeb(), connect.WithSendGzip()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sb := c.Create(map[string]any{})
			rpc := newEnvdRPC(t, c, sb, tc.transport, tc.opts...)
			processRPCs(t, rpc)
			filesystemRPCs(t, rpc, tc.contentType)
			for m := range rpc.methods {
				if !rpc.called[m] {
					t.Errorf("%s of E2B's .proto files is not tested", m)
				}
			}
		})
	}
}

func processRPCs(t *testing.T, rpc *envdRPC) {
	// Start streams the start event, the output and the end event.
	st := rpc.stream("process.Process/Start", `{"process":{"cmd":"/bin/bash","args":["-l","-c","echo out; echo err >&2; exit 3"]},"stdin":false}`)
	if pid := next(t, st)["event"].(map[string]any)["start"].(map[string]any)["pid"]; pid == nil || pid == float64(0) {
		t.Fatalf("start event without pid")
	}
	out, end := processOutput(t, st)
	if out != "out\nerr\n" && out != "err\nout\n" {
		t.Fatalf("output %q", out)
	}
	if end["exitCode"] != float64(3) || end["exited"] != true || end["status"] != "exit status 3" {
		t.Fatalf("end event %v", end)
	}

	// A tagged command with stdin: List shows it, SendInput feeds it, Connect
	// follows it by tag, CloseStdin ends its input.
	cat := rpc.stream("process.Process/Start", `{"process":{"cmd":"/bin/bash","args":["-c","read line; echo got:$line; cat"]},"tag":"reader","stdin":true}`)
	pid := next(t, cat)["event"].(map[string]any)["start"].(map[string]any)["pid"].(float64)
	list := rpc.mustUnary("process.Process/List", `{}`)
	found := false
	for _, p := range list["processes"].([]any) {
		info := p.(map[string]any)
		found = found || (info["pid"] == pid && info["tag"] == "reader" && info["config"].(map[string]any)["cmd"] == "/bin/bash")
	}
	if !found {
		t.Fatalf("List %v lacks pid %v tagged reader", list, pid)
	}
	follow := rpc.stream("process.Process/Connect", `{"process":{"tag":"reader"}}`)
	if ev := next(t, follow)["event"].(map[string]any); ev["start"].(map[string]any)["pid"] != pid {
		t.Fatalf("Connect's first event %v", ev)
	}
	rpc.mustUnary("process.Process/SendInput", `{"process":{"pid":`+jsonNumber(pid)+`},"input":{"stdin":"aGVsbG8K"}}`) // "hello\n"
	// StreamInput, the client stream, keeps its messages in order.
	in, md := rpc.client("process.Process/StreamInput")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs := in.CallClientStream(ctx)
	for _, msg := range []string{`{"start":{"process":{"tag":"reader"}}}`, `{"data":{"input":{"stdin":"b25lCg=="}}}`, `{"data":{"input":{"stdin":"dHdvCg=="}}}`} {
		if err := cs.Send(rpc.message(md.Input(), msg)); err != nil {
			t.Fatalf("StreamInput send: %v", err)
		}
	}
	if _, err := cs.CloseAndReceive(); err != nil {
		t.Fatalf("StreamInput: %v", err)
	}
	rpc.mustUnary("process.Process/CloseStdin", `{"process":{"tag":"reader"}}`)
	for name, s := range map[string]*connect.ServerStreamForClient[dynamicpb.Message]{"Start": cat, "Connect": follow} {
		out, end := processOutput(t, s)
		if out != "got:hello\none\ntwo\n" || end["exited"] != true || end["status"] != "exit status 0" {
			t.Fatalf("%s stream: output %q, end %v", name, out, end)
		}
	}

	// Update resizes a terminal; SendSignal kills.
	term := rpc.stream("process.Process/Start", `{"process":{"cmd":"/bin/bash","args":["-c","stty size; read x; stty size; sleep 60"]},"pty":{"size":{"cols":80,"rows":24}},"tag":"term"}`)
	var seen string
	readUntil := func(want string) {
		for !strings.Contains(seen, want) {
			ev := next(t, term)["event"].(map[string]any)
			if d, ok := ev["data"].(map[string]any); ok {
				seen += decodeB64(t, d["pty"].(string))
			}
		}
	}
	readUntil("24 80")
	rpc.mustUnary("process.Process/Update", `{"process":{"tag":"term"},"pty":{"size":{"cols":100,"rows":40}}}`)
	rpc.mustUnary("process.Process/SendInput", `{"process":{"tag":"term"},"input":{"pty":"eAo="}}`) // "x\n"
	readUntil("40 100")
	rpc.mustUnary("process.Process/SendSignal", `{"process":{"tag":"term"},"signal":"SIGNAL_SIGKILL"}`)
	if _, end := processOutput(t, term); end["status"] != "signal: killed" {
		t.Fatalf("killed terminal's end %v", end)
	}

	// Errors: a unary call's, and a stream's in its end.
	_, _, err := rpc.unary("process.Process/SendInput", `{"process":{"pid":999999},"input":{"stdin":"eA=="}}`)
	wantCode(t, "SendInput to no process", err, connect.CodeNotFound, "process with pid 999999 not found")
	bad := rpc.stream("process.Process/Start", `{"process":{"cmd":"/bin/bash","args":["-c","pwd"],"cwd":"/home/user/missing"}}`)
	if bad.Receive() {
		t.Fatalf("a command in a missing cwd started: %v", asMap(t, bad.Msg()))
	}
	wantCode(t, "Start in a missing cwd", bad.Err(), connect.CodeInvalidArgument, "cwd '/home/user/missing' does not exist")
}

func jsonNumber(f float64) string {
	data, _ := json.Marshal(f)
	return string(data)
}

func filesystemRPCs(t *testing.T, rpc *envdRPC, contentType string) {
	_, hdr, err := rpc.unary("filesystem.Filesystem/MakeDir", `{"path":"w"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := hdr.Get("Content-Type"); got != contentType {
		t.Fatalf("answer's Content-Type %q, want %q", got, contentType)
	}
	watch := rpc.stream("filesystem.Filesystem/WatchDir", `{"path":"w"}`)
	if _, ok := next(t, watch)["start"]; !ok {
		t.Fatal("WatchDir did not start with the start event")
	}
	watcher := rpc.mustUnary("filesystem.Filesystem/CreateWatcher", `{"path":"w","includeEntry":true}`)["watcherId"].(string)

	made := rpc.mustUnary("filesystem.Filesystem/MakeDir", `{"path":"w/d"}`)["entry"].(map[string]any)
	if made["name"] != "d" || made["type"] != "FILE_TYPE_DIRECTORY" || made["path"] != "/home/user/w/d" || made["modifiedTime"] == nil {
		t.Fatalf("MakeDir entry %v", made)
	}
	if ev := next(t, watch)["filesystem"].(map[string]any); ev["name"] != "d" || ev["type"] != "EVENT_TYPE_CREATE" {
		t.Fatalf("WatchDir event %v", ev)
	}
	moved := rpc.mustUnary("filesystem.Filesystem/Move", `{"source":"w/d","destination":"w/e"}`)["entry"].(map[string]any)
	if moved["path"] != "/home/user/w/e" {
		t.Fatalf("Move entry %v", moved)
	}
	if st := rpc.mustUnary("filesystem.Filesystem/Stat", `{"path":"/home/user/w/e"}`)["entry"].(map[string]any); st["name"] != "e" || st["owner"] != "user" {
		t.Fatalf("Stat entry %v", st)
	}
	entries := rpc.mustUnary("filesystem.Filesystem/ListDir", `{"path":"w","depth":1}`)["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["name"] != "e" {
		t.Fatalf("ListDir entries %v", entries)
	}
	rpc.mustUnary("filesystem.Filesystem/Remove", `{"path":"w/e"}`)
	_, _, err = rpc.unary("filesystem.Filesystem/Stat", `{"path":"w/e"}`)
	wantCode(t, "Stat of a removed folder", err, connect.CodeNotFound, "path '/home/user/w/e' does not exist")

	var events []any
	emulatortest.Eventually(t, "the watcher's events", func() bool {
		got := rpc.mustUnary("filesystem.Filesystem/GetWatcherEvents", `{"watcherId":"`+watcher+`"}`)
		evs, _ := got["events"].([]any)
		events = append(events, evs...)
		return len(events) > 0 && strings.Contains(jsonText(events), `"name":"e"`)
	})
	first := events[0].(map[string]any)
	if first["name"] != "d" || first["type"] != "EVENT_TYPE_CREATE" || first["entry"].(map[string]any)["type"] != "FILE_TYPE_DIRECTORY" {
		t.Fatalf("first watcher event %v", first)
	}
	rpc.mustUnary("filesystem.Filesystem/RemoveWatcher", `{"watcherId":"`+watcher+`"}`)
	_, _, err = rpc.unary("filesystem.Filesystem/GetWatcherEvents", `{"watcherId":"`+watcher+`"}`)
	wantCode(t, "events of a removed watcher", err, connect.CodeNotFound, "not found")
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
