package e2b

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestEnvelopeRoundTripAndCutFrames(t *testing.T) {
	var stream bytes.Buffer
	stream.Write(encodeEnvelope(0, []byte(`{"event":{"start":{"pid":7}}}`)))
	stream.Write(encodeEnvelope(0, []byte{}))
	stream.Write(encodeEnvelope(flagEndStream, []byte(`{}`)))
	raw := stream.Bytes()
	if raw[0] != 0 || raw[4] != byte(len(`{"event":{"start":{"pid":7}}}`)) {
		t.Fatalf("header bytes %v", raw[:5])
	}
	er := newEnvelopeReader(bytes.NewReader(raw))
	for i, want := range []struct {
		flags   byte
		payload string
	}{{0, `{"event":{"start":{"pid":7}}}`}, {0, ""}, {flagEndStream, "{}"}} {
		f, p, err := er.next()
		if err != nil || f != want.flags || string(p) != want.payload {
			t.Fatalf("frame %d: %x %q %v", i, f, p, err)
		}
	}
	if _, _, err := er.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after last frame: %v", err)
	}
	cut := newEnvelopeReader(bytes.NewReader(raw[:10]))
	if _, _, err := cut.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut frame: %v", err)
	}
	huge := []byte{0, 0xff, 0xff, 0xff, 0xff}
	if _, _, err := newEnvelopeReader(bytes.NewReader(huge)).next(); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversized frame: %v", err)
	}
}

func TestEndStreamError(t *testing.T) {
	if err := endStreamError("op", "i1", []byte(`{}`)); err != nil {
		t.Fatalf("empty end-stream: %v", err)
	}
	err := endStreamError("envd Process/Start", "i1", []byte(`{"error":{"code":"deadline_exceeded","message":"context deadline exceeded"},"metadata":{"x":["y"]}}`))
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != "deadline_exceeded" || ae.StatusCode != 504 {
		t.Fatalf("end-stream error: %#v", err)
	}
	if err := endStreamError("op", "i1", []byte(`{`)); err == nil {
		t.Fatal("malformed end-stream accepted")
	}
}

func TestDecodeProcessEvents(t *testing.T) {
	cases := map[string]ProcessEvent{
		`{"event":{"start":{"pid":42}}}`:                             {Kind: EventStart, PID: 42},
		`{"event":{"data":{"stdout":"aGkK"}}}`:                       {Kind: EventStdout, Data: []byte("hi\n")},
		`{"event":{"data":{"stderr":"ZXJy"}}}`:                       {Kind: EventStderr, Data: []byte("err")},
		`{"event":{"keepalive":{}}}`:                                 {Kind: EventKeepalive},
		`{"event":{"end":{"exited":true,"status":"exit status 0"}}}`: {Kind: EventEnd, Exited: true, Status: "exit status 0"},
		`{"event":{"end":{"exitCode":-1,"status":"signal: killed","error":"signal: killed"}}}`: {
			Kind: EventEnd, ExitCode: -1, Status: "signal: killed", Error: "signal: killed"},
	}
	for in, want := range cases {
		got, err := decodeProcessEvent([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s → %#v, %v; want %#v", in, got, err, want)
		}
	}
	if _, err := decodeProcessEvent([]byte(`{"event":{}}`)); err == nil {
		t.Error("event without member accepted")
	}
}

func TestProtoJSONEntry(t *testing.T) {
	var w wireEntry
	in := `{"name":"a.txt","type":"FILE_TYPE_FILE","path":"/home/user/a.txt","size":"1024","mode":420,
		"permissions":"-rw-r--r--","owner":"user","group":"user","modifiedTime":"2026-08-21T10:00:00.123456789Z"}`
	if err := json.Unmarshal([]byte(in), &w); err != nil {
		t.Fatal(err)
	}
	e := w.toEntry()
	if e.Size != 1024 || e.Type != "file" || e.Mode != 0o644 || e.ModifiedTime.Nanosecond() != 123456789 {
		t.Fatalf("entry %#v", e)
	}
	if err := json.Unmarshal([]byte(`{"size":77,"type":"FILE_TYPE_DIRECTORY","symlinkTarget":"/x"}`), &w); err != nil {
		t.Fatal(err)
	}
	if e := w.toEntry(); e.Size != 77 || e.Type != "dir" || e.SymlinkTarget != "/x" {
		t.Fatalf("numeric size / dir: %#v", e)
	}
	if err := json.Unmarshal([]byte(`{"size":"x"}`), &w); err == nil {
		t.Fatal("bad int64 accepted")
	}
}

// TestMetadataQueryDecodesLikeE2B decodes the query the way E2B's API
// server does: parse the URL query, unescape the value once more, split on
// & and =, unescape each key and value.
func TestMetadataQueryDecodesLikeE2B(t *testing.T) {
	md := map[string]string{"a b": "x&y", "k": "v=1", "plain": "value", "pct": "50%+ü"}
	q := ListSandboxesParams{Metadata: md}.query("").Encode()
	if strings.Contains(q, "a b") {
		t.Fatalf("not encoded: %s", q)
	}
	vals, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := url.QueryUnescape(vals.Get("metadata"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, pair := range strings.Split(inner, "&") {
		kv := strings.Split(pair, "=")
		if len(kv) != 2 {
			t.Fatalf("pair %q has %d parts", pair, len(kv))
		}
		k, err1 := url.QueryUnescape(kv[0])
		v, err2 := url.QueryUnescape(kv[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("unescape %q: %v %v", pair, err1, err2)
		}
		got[k] = v
	}
	if !reflect.DeepEqual(got, md) {
		t.Fatalf("decoded %v, want %v", got, md)
	}
	// The SDK's example: key "a b" → a%252520b in the final URL.
	if !strings.Contains(q, "a%252520b") {
		t.Fatalf("not triple-encoded like the JS SDK: %s", q)
	}
}

func TestListQueryJoinsStatesAndOmitsEmpty(t *testing.T) {
	q := ListSandboxesParams{States: []string{"running", "paused"}, Limit: 2, Order: "asc", Template: "base"}.query("tok")
	if q.Get("state") != "running,paused" || q.Get("limit") != "2" || q.Get("nextToken") != "tok" || q.Get("order") != "asc" {
		t.Fatalf("query %v", q)
	}
	if q.Has("metadata") || q.Has("startedAfter") {
		t.Fatalf("empty filters sent: %v", q)
	}
}
