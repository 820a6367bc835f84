package e2b

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func writeFrames(t *testing.T, w http.ResponseWriter, frames ...[]byte) {
	t.Helper()
	w.Header().Set("Content-Type", contentTypeStream)
	w.WriteHeader(200)
	moreFrames(w, frames...)
}

func moreFrames(w http.ResponseWriter, frames ...[]byte) {
	for _, f := range frames {
		if _, err := w.Write(f); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func msg(s string) []byte { return encodeEnvelope(0, []byte(s)) }

func TestStartProcessStreamsEventsUntilEndStream(t *testing.T) {
	var gotBody []byte
	var gotHeaders http.Header
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /process.Process/Start": func(w http.ResponseWriter, r *http.Request) {
			gotHeaders = r.Header.Clone()
			gotBody, _ = io.ReadAll(r.Body)
			writeFrames(t, w,
				msg(`{"event":{"start":{"pid":1005}}}`),
				msg(`{"event":{"data":{"stdout":"aGkK"}}}`),
				msg(`{"event":{"keepalive":{}}}`),
				msg(`{"event":{"data":{"stderr":"ZXJy"}}}`),
				msg(`{"event":{"end":{"exitCode":3,"exited":true,"status":"exit status 3","error":"exit status 3"}}}`),
				encodeEnvelope(flagEndStream, []byte(`{}`)))
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	e := c.Envd(EnvdTarget{SandboxID: "isb1"})
	s, err := e.StartProcess(context.Background(), StartProcessRequest{
		Process: ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "echo hi"}, Cwd: "/tmp", Envs: map[string]string{"A": "1"}},
		Timeout: 1500 * time.Millisecond, Tag: "t1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if s.PID() != 1005 {
		t.Fatalf("pid %d", s.PID())
	}
	var kinds []string
	var stdout, stderr string
	var end ProcessEvent
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind.String())
		switch ev.Kind {
		case EventStdout:
			stdout += string(ev.Data)
		case EventStderr:
			stderr += string(ev.Data)
		case EventEnd:
			end = ev
		}
	}
	if strings.Join(kinds, ",") != "stdout,keepalive,stderr,end" || stdout != "hi\n" || stderr != "err" {
		t.Fatalf("events %v stdout %q stderr %q", kinds, stdout, stderr)
	}
	if end.ExitCode != 3 || !end.Exited || end.Error != "exit status 3" {
		t.Fatalf("end %+v", end)
	}
	if gotHeaders.Get("Content-Type") != contentTypeStream || gotHeaders.Get("Connect-Protocol-Version") != "1" ||
		gotHeaders.Get("Connect-Timeout-Ms") != "1500" || gotHeaders.Get("Keepalive-Ping-Interval") == "" {
		t.Fatalf("stream headers %v", gotHeaders)
	}
	er := newEnvelopeReader(bytes.NewReader(gotBody))
	flags, payload, err := er.next()
	if err != nil || flags != 0 {
		t.Fatalf("request envelope: %v %x", err, flags)
	}
	want := `{"process":{"cmd":"/bin/bash","args":["-l","-c","echo hi"],"envs":{"A":"1"},"cwd":"/tmp"},"tag":"t1","stdin":false}`
	if string(payload) != want {
		t.Fatalf("request\n got %s\nwant %s", payload, want)
	}
}

func TestStreamErrorsAndCutStreams(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /process.Process/Start": func(w http.ResponseWriter, r *http.Request) {
			writeFrames(t, w, msg(`{"event":{"start":{"pid":9}}}`),
				encodeEnvelope(flagEndStream, []byte(`{"error":{"code":"deadline_exceeded","message":"context deadline exceeded"}}`)))
		},
		"POST /process.Process/Connect": func(w http.ResponseWriter, r *http.Request) {
			writeFrames(t, w, msg(`{"event":{"start":{"pid":9}}}`), []byte{0, 0, 0})
			panic(http.ErrAbortHandler) // cut mid-frame, like a killed sandbox
		},
		"GET /health": answerJSON(502, `{"sandboxId":"isb1","message":"The sandbox was not found","code":502}`),
	})
	c := newTestClient(t, fastConfig(rs.URL))
	e := c.Envd(EnvdTarget{SandboxID: "isb1"})
	ctx := context.Background()
	s, err := e.StartProcess(ctx, StartProcessRequest{Process: ProcessConfig{Cmd: "sleep"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err == nil || !strings.Contains(err.Error(), "deadline_exceeded") {
		t.Fatalf("end-stream error: %v", err)
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after end: %v", err)
	}
	s2, err := e.ConnectProcess(ctx, 9)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s2.Close() }()
	if _, err := s2.Next(); !IsSandboxNotRunning(err) {
		t.Fatalf("cut stream with envd 502 must be IsSandboxNotRunning, got %v", err)
	}
	running, err := e.Health(ctx)
	if err != nil || running {
		t.Fatalf("health: %v %v", running, err)
	}
}

func TestUnaryRPCsAndConnectErrors(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /filesystem.Filesystem/Stat": func(w http.ResponseWriter, r *http.Request) {
			var in map[string]string
			_ = json.NewDecoder(r.Body).Decode(&in)
			if in["path"] == "/missing" {
				writeJSON(w, 404, `{"code":"not_found","message":"path '/missing' does not exist"}`)
				return
			}
			writeJSON(w, 200, `{"entry":{"name":"a","type":"FILE_TYPE_FILE","path":"/a","size":"5","mode":420}}`)
		},
		"POST /filesystem.Filesystem/MakeDir": answerJSON(409, `{"code":"already_exists","message":"directory exists"}`),
		"POST /process.Process/SendSignal": func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if string(b) != `{"process":{"pid":7},"signal":"SIGNAL_SIGKILL"}` {
				t.Errorf("SendSignal body %s", b)
			}
			writeJSON(w, 200, `{}`)
		},
		"POST /process.Process/SendInput": func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if string(b) != `{"process":{"pid":7},"input":{"stdin":"YWJjCg=="}}` {
				t.Errorf("SendInput body %s", b)
			}
			writeJSON(w, 502, `{"sandboxId":"isb1","message":"The sandbox was not found","code":502}`)
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	e := c.Envd(EnvdTarget{SandboxID: "isb1"})
	ctx := context.Background()
	info, err := e.Stat(ctx, "/a")
	if err != nil || info.Size != 5 || info.Type != "file" {
		t.Fatalf("stat %+v %v", info, err)
	}
	if _, err := e.Stat(ctx, "/missing"); !IsNotFound(err) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := e.MakeDir(ctx, "/d"); !IsConflict(err) {
		t.Fatalf("mkdir existing: %v", err)
	}
	if err := e.SendSignal(ctx, 7, "SIGKILL"); err != nil {
		t.Fatal(err)
	}
	if err := e.SendSignal(ctx, 7, "SIGHUP"); err == nil {
		t.Fatal("unsupported signal accepted")
	}
	err = e.SendInput(ctx, 7, []byte("abc\n"))
	if !IsSandboxNotRunning(err) || !strings.Contains(err.Error(), `sandbox "isb1" is not running`) {
		t.Fatalf("502: %v", err)
	}
	if n := rs.count("POST /process.Process/SendInput"); n != 1 {
		t.Fatalf("envd 502 retried: %d attempts", n)
	}
}

func TestFilesStreamGzipBothWays(t *testing.T) {
	content := strings.Repeat("hello gzip world\n", 10000)
	var stored []byte
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /files": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Content-Type") != "application/octet-stream" || r.URL.Query().Get("path") != "/home/user/a.txt" {
				t.Errorf("upload headers %v query %v", r.Header, r.URL.Query())
			}
			var body io.Reader = r.Body
			if r.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(r.Body)
				if err != nil {
					t.Error(err)
					return
				}
				body = zr
			}
			stored, _ = io.ReadAll(body)
			writeJSON(w, 200, `[{"path":"/home/user/a.txt","name":"a.txt","type":"file"}]`)
		},
		"GET /files": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			if r.Header.Get("Accept-Encoding") == "gzip" {
				w.Header().Set("Content-Encoding", "gzip")
				zw := gzip.NewWriter(w)
				_, _ = zw.Write(stored)
				_ = zw.Close()
				return
			}
			_, _ = w.Write(stored)
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	e := c.Envd(EnvdTarget{SandboxID: "isb1"})
	ctx := context.Background()
	for _, gz := range []bool{false, true} {
		stored = nil
		info, err := e.WriteFile(ctx, "/home/user/a.txt", strings.NewReader(content), WriteOptions{Gzip: gz})
		if err != nil || info.Name != "a.txt" || string(stored) != content {
			t.Fatalf("gzip=%v write: %+v %v (stored %d bytes)", gz, info, err, len(stored))
		}
		rc, err := e.ReadFile(ctx, "/home/user/a.txt", ReadOptions{Gzip: gz})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || string(got) != content {
			t.Fatalf("gzip=%v read %d bytes, %v", gz, len(got), err)
		}
	}
}

func TestLongStreamIsNotCutByRequestTimeout(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /process.Process/Start": func(w http.ResponseWriter, r *http.Request) {
			writeFrames(t, w, msg(`{"event":{"start":{"pid":3}}}`))
			time.Sleep(400 * time.Millisecond) // longer than RequestTimeout
			moreFrames(w, msg(`{"event":{"end":{"exited":true,"status":"exit status 0"}}}`), encodeEnvelope(flagEndStream, []byte(`{}`)))
		},
	})
	cfg := fastConfig(rs.URL)
	cfg.RequestTimeout = 100 * time.Millisecond
	c := newTestClient(t, cfg)
	s, err := c.Envd(EnvdTarget{SandboxID: "isb1"}).StartProcess(context.Background(), StartProcessRequest{Process: ProcessConfig{Cmd: "sleep"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	ev, err := s.Next()
	if err != nil || ev.Kind != EventEnd {
		t.Fatalf("stream cut by RequestTimeout: %+v %v", ev, err)
	}
}
