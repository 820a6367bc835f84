package emulator

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

func TestProcessOutputExitCodeAndEnv(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{"envVars": map[string]string{"FOO": "sandbox", "KEEP": "k"}})
	res := c.startProcess(sb, `echo out; echo err >&2; echo "$FOO $KEEP $BAR $HOME $USER $LOGNAME"; pwd; exit 3`,
		map[string]any{"envs": map[string]string{"FOO": "request", "BAR": "b"}}, nil).collect()
	home := envd.VirtualHome
	if !c.srv.isolate {
		home = homeDir(c.machine(sb.SandboxID))
	}
	wantOut := fmt.Sprintf("out\nrequest k b %s user user\n%s\n", home, home)
	if res.stdout != wantOut || res.stderr != "err\n" {
		t.Fatalf("stdout %q stderr %q, want %q and %q", res.stdout, res.stderr, wantOut, "err\n")
	}
	if res.end["exitCode"] != float64(3) || res.end["exited"] != true || res.end["status"] != "exit status 3" || res.end["error"] != "exit status 3" {
		t.Fatalf("end event %v", res.end)
	}
	if len(res.endStream) != 0 {
		t.Fatalf("end-stream %v, want {}", res.endStream)
	}
	ok := c.run(sb, "true")
	if _, has := ok.end["exitCode"]; has || ok.end["exited"] != true || ok.end["status"] != "exit status 0" || ok.end["error"] != nil {
		t.Fatalf("success end event %v (defaults must be omitted)", ok.end)
	}
	cwd := c.startProcess(sb, "pwd", map[string]any{"cwd": "/tmp"}, nil).collect()
	if c.srv.isolate && cwd.stdout != "/tmp\n" {
		t.Fatalf("cwd /tmp printed %q", cwd.stdout)
	}
}

func TestProcessInvalidCwdFailsTheStream(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	ps := c.openStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-l", "-c", "pwd"}, "cwd": "/home/user/missing"},
	}, nil)
	f, err := ps.next()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := f.msg["error"].(map[string]any)
	if f.flags != connectrpc.FlagEndStream || e["code"] != "invalid_argument" || !strings.Contains(fmt.Sprint(e["message"]), "cwd '/home/user/missing' does not exist") {
		t.Fatalf("frame %d %v", f.flags, f.msg)
	}
}

func TestProcessTimeoutKills(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	res := c.startProcess(sb, "echo started; sleep 60", nil, map[string]string{"Connect-Timeout-Ms": "500"}).collect()
	e, _ := res.endStream["error"].(map[string]any)
	if res.stdout != "started\n" || e["code"] != "deadline_exceeded" {
		t.Fatalf("timeout result %+v", res)
	}
	eventually(t, "timed-out process gone", func() bool {
		st, data := c.rpc(sb, "process.Process/List", map[string]any{})
		return st == 200 && !strings.Contains(string(data), "sleep 60")
	})
}

func TestProcessStdinSignalsConnectAndList(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})

	// stdin: SendInput then CloseStdin ends cat.
	cat := c.startProcess(sb, "cat", map[string]any{"stdin": true}, nil)
	st, data := c.rpc(sb, "process.Process/SendInput", map[string]any{
		"process": map[string]any{"pid": cat.pid}, "input": map[string]any{"stdin": base64.StdEncoding.EncodeToString([]byte("abc\n"))},
	})
	wantStatus(t, "send input", st, data, http.StatusOK)
	st, data = c.rpc(sb, "process.Process/CloseStdin", map[string]any{"process": map[string]any{"pid": cat.pid}})
	wantStatus(t, "close stdin", st, data, http.StatusOK)
	if res := cat.collect(); res.stdout != "abc\n" || res.end["exited"] != true {
		t.Fatalf("cat result %+v", res)
	}
	// stdin disabled: SendInput fails.
	noIn := c.startProcess(sb, "sleep 30", map[string]any{"tag": "sleeper"}, nil)
	st, data = c.rpc(sb, "process.Process/SendInput", map[string]any{
		"process": map[string]any{"pid": noIn.pid}, "input": map[string]any{"stdin": "YQ=="},
	})
	if st != 500 || !strings.Contains(string(data), "stdin not enabled or closed") {
		t.Fatalf("send input without stdin: %d %s", st, data)
	}
	// List shows the tagged process with its config.
	st, data = c.rpc(sb, "process.Process/List", map[string]any{})
	wantStatus(t, "list", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"tag":"sleeper"`) || !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, noIn.pid)) {
		t.Fatalf("list %s", data)
	}
	// Connect re-attaches by tag; SIGTERM ends both streams.
	again := c.openStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"tag": "sleeper"}}, nil)
	again.expectStart()
	if again.pid != noIn.pid {
		t.Fatalf("connect pid %d, want %d", again.pid, noIn.pid)
	}
	st, data = c.rpc(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": noIn.pid}, "signal": "SIGNAL_SIGTERM"})
	wantStatus(t, "sigterm", st, data, http.StatusOK)
	for _, ps := range []*procStream{noIn, again} {
		res := ps.collect()
		if res.end["status"] != "signal: terminated" || res.end["exitCode"] != float64(-1) || res.end["exited"] != nil {
			t.Fatalf("terminated end event %v", res.end)
		}
	}
	// Connect to a process that ended recently gets start + end.
	ended := c.openStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": noIn.pid}}, nil)
	ended.expectStart()
	if res := ended.collect(); res.end["status"] != "signal: terminated" || res.endStream == nil {
		t.Fatalf("connect to ended process %+v", res)
	}
	// Unknown pids answer not_found, unary and streaming.
	st, data = c.rpc(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": 1}, "signal": "SIGNAL_SIGKILL"})
	if st != 404 || !strings.Contains(string(data), `"code":"not_found"`) {
		t.Fatalf("signal unknown pid: %d %s", st, data)
	}
	st, data = c.rpc(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": cat.pid}, "signal": "SIGNAL_UNSPECIFIED"})
	if st != 501 {
		t.Fatalf("unspecified signal: %d %s", st, data)
	}
	missing := c.openStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": 1}}, nil)
	f, err := missing.next()
	if err != nil || f.flags != connectrpc.FlagEndStream || !strings.Contains(fmt.Sprint(f.msg), "not_found") {
		t.Fatalf("connect unknown: %v %v", f, err)
	}
	// SIGKILL reaches the whole process group (the background child too).
	group := c.startProcess(sb, "sleep 40 & sleep 41; wait", nil, nil)
	st, data = c.rpc(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": group.pid}, "signal": "SIGNAL_SIGKILL"})
	wantStatus(t, "sigkill", st, data, http.StatusOK)
	if res := group.collect(); res.end["status"] != "signal: killed" {
		t.Fatalf("killed end %v", res.end)
	}
	eventually(t, "background child killed", func() bool {
		for _, p := range sandboxos.ScanProcs(false) {
			if p.PGRP == int(group.pid) && procState(uint32(p.PID)) != "Z" {
				return false
			}
		}
		return true
	})
}

func TestProcessKeepaliveAndBackgroundChild(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	res := c.startProcess(sb, "sleep 2.5; echo done", nil, map[string]string{"Keepalive-Ping-Interval": "1"}).collect()
	if res.keepalives == 0 || res.stdout != "done\n" {
		t.Fatalf("keepalive result %+v", res)
	}
	// A background child holding stdout open must not hold the end event forever.
	bg := c.run(sb, "sleep 20 & echo parent")
	if bg.stdout != "parent\n" || bg.end == nil {
		t.Fatalf("background result %+v", bg)
	}
}

func TestKillDropsStreamsWithoutEndStream(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	ps := c.startProcess(sb, "sleep 60", nil, nil)
	st, data, _ := c.api("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	wantStatus(t, "kill", st, data, http.StatusNoContent)
	res := ps.collect()
	if res.dropped == nil || res.endStream != nil {
		t.Fatalf("stream after kill %+v, want dropped without end-stream", res)
	}
}

func TestStreamInputAndPty(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	cat := c.startProcess(sb, "cat", map[string]any{"stdin": true}, nil)
	var body bytes.Buffer
	for _, msg := range []string{
		fmt.Sprintf(`{"start":{"process":{"pid":%d}}}`, cat.pid),
		`{"data":{"input":{"stdin":"` + base64.StdEncoding.EncodeToString([]byte("streamed")) + `"}}}`,
		`{"keepalive":{}}`,
	} {
		body.WriteByte(0)
		_ = binary.Write(&body, binary.BigEndian, uint32(len(msg)))
		body.WriteString(msg)
	}
	req, _ := http.NewRequest("POST", c.srv.SandboxURL()+"/process.Process/StreamInput", &body)
	req.Header.Set("Content-Type", "application/connect+json")
	for k, v := range envdHeaders(sb) {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ps := &procStream{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
	if f, err := ps.next(); err != nil || f.flags != 0 {
		t.Fatalf("StreamInput response %v %v", f, err)
	}
	if f, err := ps.next(); err != nil || f.flags != connectrpc.FlagEndStream || len(f.msg) != 0 {
		t.Fatalf("StreamInput end %v %v", f, err)
	}
	_ = resp.Body.Close()
	c.rpc(sb, "process.Process/CloseStdin", map[string]any{"process": map[string]any{"pid": cat.pid}})
	if res := cat.collect(); res.stdout != "streamed" {
		t.Fatalf("cat got %q", res.stdout)
	}

	pty := c.openStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", "echo out; echo err >&2"}},
		"pty":     map[string]any{"size": map[string]any{"cols": 80, "rows": 24}},
	}, nil)
	pty.expectStart()
	var got strings.Builder
	for {
		f, err := pty.next()
		if err != nil || f.flags == connectrpc.FlagEndStream {
			break
		}
		if d, ok := f.msg["event"].(map[string]any)["data"].(map[string]any); ok {
			if _, isPty := d["pty"]; !isPty {
				t.Fatalf("pty process sent %v", d)
			}
			b, _ := base64.StdEncoding.DecodeString(d["pty"].(string))
			got.Write(b)
		}
	}
	if got.String() != "out\r\nerr\r\n" { // a real terminal: both streams, newlines as CR LF
		t.Fatalf("pty output %q", got.String())
	}
	st, data := c.rpc(sb, "process.Process/Update", map[string]any{"process": map[string]any{"pid": cat.pid}, "pty": map[string]any{"size": map[string]any{"cols": 100, "rows": 30}}})
	if st != http.StatusBadRequest || !strings.Contains(string(data), `"code":"failed_precondition"`) {
		t.Fatalf("resize of a process without a terminal: %d %s", st, data)
	}
}

func TestUnknownCommandAndUser(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	for _, cmd := range []string{"/no/such/binary", "no-such-command-here"} {
		ps := c.openStream(sb, "process.Process/Start", map[string]any{"process": map[string]any{"cmd": cmd}}, nil)
		f, err := ps.next()
		e, _ := f.msg["error"].(map[string]any)
		if err != nil || f.flags != connectrpc.FlagEndStream || e["code"] != "internal" || !strings.Contains(fmt.Sprint(e["message"]), "error starting process") {
			t.Fatalf("start %s: %v %v", cmd, f.msg, err)
		}
	}
	h := envdHeaders(sb)
	h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte("mallory:"))
	st, data, _ := c.request("POST", c.srv.SandboxURL()+"/process.Process/List", map[string]any{}, h)
	if st != 401 || !strings.Contains(string(data), "invalid username: 'mallory'") {
		t.Fatalf("unknown rpc user: %d %s", st, data)
	}
	h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"))
	st, data, _ = c.request("POST", c.srv.SandboxURL()+"/process.Process/List", map[string]any{}, h)
	wantStatus(t, "known rpc user", st, data, http.StatusOK)
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/files?path=x&username=mallory", nil, envdHeaders(sb))
	if st != 401 || !strings.Contains(string(data), "error looking up user 'mallory'") {
		t.Fatalf("unknown files user: %d %s", st, data)
	}
}
