package connectrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

const echoProto = `syntax = "proto3";
package echo;
service Echo {
  rpc Say(Msg) returns (Msg);
  rpc Count(Msg) returns (stream Msg);
}
message Msg { bytes data = 1; string text = 2; }
`

// echoServer serves the Echo service's JSON side as envd's handlers do, and
// the other codecs through a Transcoder.
func echoServer(t *testing.T) (*httptest.Server, *Transcoder, *[]string) {
	t.Helper()
	tc, err := NewTranscoder(map[string]string{"echo.proto": echoProto})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string // Connect-Timeout-Ms of each JSON request
	jsonSide := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Connect-Timeout-Ms"))
		switch r.URL.Path {
		case "/echo.Echo/Say":
			var msg map[string]any
			if err := ReadUnary(r, &msg); err != nil {
				WriteError(w, err)
				return
			}
			if msg["text"] == "fail" {
				WriteError(w, Errorf("failed_precondition", "asked to fail"))
				return
			}
			WriteUnary(w, msg)
		case "/echo.Echo/Count":
			var msg map[string]any
			if err := ReadStreamRequest(r, &msg); err != nil {
				NewStreamWriter(w).End(err)
				return
			}
			sw := NewStreamWriter(w)
			for _, s := range []string{"one", "two"} {
				_ = sw.Send(map[string]string{"text": s})
			}
			if msg["text"] == "wait" {
				<-r.Context().Done() // left without an end-stream frame
				return
			}
			sw.End(Errorf("aborted", "after two"))
		}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ServedAsJSON(r) {
			jsonSide(w, r)
			return
		}
		tc.Serve(w, r, jsonSide)
	}))
	t.Cleanup(srv.Close)
	return srv, tc, &seen
}

func echoClient(srv *httptest.Server, tc *Transcoder, method string, opts ...connect.ClientOption) (*connect.Client[dynamicpb.Message, dynamicpb.Message], protoreflect.MethodDescriptor) {
	md := tc.methods["/echo.Echo/"+method]
	opts = append([]connect.ClientOption{connect.WithSchema(md), connect.WithResponseInitializer(func(_ connect.Spec, msg any) error {
		*msg.(*dynamicpb.Message) = *dynamicpb.NewMessage(md.Output())
		return nil
	})}, opts...)
	return connect.NewClient[dynamicpb.Message, dynamicpb.Message](srv.Client(), srv.URL+"/echo.Echo/"+method, opts...), md
}

func echoMsg(md protoreflect.MethodDescriptor, text string, data []byte) *dynamicpb.Message {
	msg := dynamicpb.NewMessage(md.Input())
	msg.Set(md.Input().Fields().ByName("text"), protoreflect.ValueOfString(text))
	msg.Set(md.Input().Fields().ByName("data"), protoreflect.ValueOfBytes(data))
	return msg
}

func TestTranscoderServesEveryMethodOfTheSources(t *testing.T) {
	_, tc, _ := echoServer(t)
	if got := strings.Join(tc.Procedures(), " "); got != "/echo.Echo/Count /echo.Echo/Say" {
		t.Fatalf("procedures %s", got)
	}
}

// A unary call goes to the JSON handler as proto-JSON and comes back as a
// message, gzip-compressed requests too; its error keeps code and message.
func TestTranscoderUnary(t *testing.T) {
	srv, tc, _ := echoServer(t)
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "gzip": {connect.WithSendGzip()}, "grpc-web": {connect.WithGRPCWeb()}} {
		cl, md := echoClient(srv, tc, "Say", opts...)
		res, err := cl.CallUnary(t.Context(), connect.NewRequest(echoMsg(md, "hi", []byte{0, 1, 2})))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := res.Msg.Get(md.Output().Fields().ByName("data")).Bytes(); !bytes.Equal(got, []byte{0, 1, 2}) {
			t.Fatalf("%s: data %v", name, got)
		}
		_, err = cl.CallUnary(t.Context(), connect.NewRequest(echoMsg(md, "fail", nil)))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || ce.Message() != "asked to fail" {
			t.Fatalf("%s: error %v", name, err)
		}
	}
}

// A message is refused past MaxMessageSize on the wire, and past it once in
// JSON (bytes grow by a third in base64), before the JSON handler sees it.
func TestTranscoderBoundsMessages(t *testing.T) {
	srv, tc, seen := echoServer(t)
	cl, md := echoClient(srv, tc, "Say")
	for name, size := range map[string]int{"on the wire": MaxMessageSize + 1, "in JSON": MaxMessageSize - 1<<20} {
		_, err := cl.CallUnary(t.Context(), connect.NewRequest(echoMsg(md, "", make([]byte, size))))
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("%s: %v, want resource_exhausted", name, err)
		}
	}
	if len(*seen) != 0 {
		t.Fatalf("the JSON handler saw %d oversized requests", len(*seen))
	}
}

// A server stream's messages come through one by one, its end-stream error
// as the stream's error, the call's deadline as Connect-Timeout-Ms; a stream
// the handler leaves without an end is the deadline's error.
func TestTranscoderServerStream(t *testing.T) {
	srv, tc, seen := echoServer(t)
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}, "grpc-web": {connect.WithGRPCWeb()}} {
		cl, md := echoClient(srv, tc, "Count", opts...)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		st, err := cl.CallServerStream(ctx, connect.NewRequest(echoMsg(md, "", nil)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for st.Receive() {
			got = append(got, st.Msg().Get(md.Output().Fields().ByName("text")).String())
		}
		var ce *connect.Error
		if strings.Join(got, ",") != "one,two" || !errors.As(st.Err(), &ce) || ce.Code() != connect.CodeAborted || ce.Message() != "after two" {
			t.Fatalf("%s: messages %v, end %v", name, got, st.Err())
		}
		if ms, err := strconv.Atoi((*seen)[len(*seen)-1]); err != nil || ms <= 0 || ms > 10000 {
			t.Fatalf("%s: Connect-Timeout-Ms %q, want the 10 s deadline", name, (*seen)[len(*seen)-1])
		}
		cancel()

		ctx, cancel = context.WithTimeout(t.Context(), 300*time.Millisecond)
		st, err = cl.CallServerStream(ctx, connect.NewRequest(echoMsg(md, "wait", nil)))
		if err != nil {
			t.Fatal(err)
		}
		for st.Receive() {
		}
		if connect.CodeOf(st.Err()) != connect.CodeDeadlineExceeded {
			t.Fatalf("%s: a stream past its deadline ended with %v", name, st.Err())
		}
		cancel()
	}
}

// An unknown method is 404, as connect-go's service handler answers it; a
// message that is not the method's input is invalid_argument.
func TestTranscoderRefusals(t *testing.T) {
	srv, _, seen := echoServer(t)
	resp, err := http.Post(srv.URL+"/echo.Echo/Nope", "application/proto", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown method: %d", resp.StatusCode)
	}
	resp, err = http.Post(srv.URL+"/echo.Echo/Say", "application/proto", bytes.NewReader([]byte{0xff, 0xff}))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var e errorJSON
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Code != "invalid_argument" || len(*seen) != 0 {
		t.Fatalf("garbage message: %d %s", resp.StatusCode, body)
	}
}
