package envd_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

func TestProcessOutputExitCodeAndEnv(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"envVars": map[string]string{"FOO": "sandbox", "KEEP": "k"}})
	res := c.StartProcess(sb, `echo out; echo err >&2; echo "$FOO $KEEP $BAR $HOME $USER $LOGNAME"; pwd; exit 3`,
		map[string]any{"envs": map[string]string{"FOO": "request", "BAR": "b"}}, nil).Collect()
	home := envd.VirtualHome
	if !c.Srv.Isolated() {
		home = emulatortest.HomeDir(c.Machine(sb.SandboxID))
	}
	wantOut := fmt.Sprintf("out\nrequest k b %s user user\n%s\n", home, home)
	if res.Stdout != wantOut || res.Stderr != "err\n" {
		t.Fatalf("stdout %q stderr %q, want %q and %q", res.Stdout, res.Stderr, wantOut, "err\n")
	}
	if res.End["exitCode"] != float64(3) || res.End["exited"] != true || res.End["status"] != "exit status 3" || res.End["error"] != "exit status 3" {
		t.Fatalf("end event %v", res.End)
	}
	if len(res.EndStream) != 0 {
		t.Fatalf("end-stream %v, want {}", res.EndStream)
	}
	ok := c.Run(sb, "true")
	if _, has := ok.End["exitCode"]; has || ok.End["exited"] != true || ok.End["status"] != "exit status 0" || ok.End["error"] != nil {
		t.Fatalf("success end event %v (defaults must be omitted)", ok.End)
	}
	cwd := c.StartProcess(sb, "pwd", map[string]any{"cwd": "/tmp"}, nil).Collect()
	if c.Srv.Isolated() && cwd.Stdout != "/tmp\n" {
		t.Fatalf("cwd /tmp printed %q", cwd.Stdout)
	}
}

func TestProcessInvalidCwdFailsTheStream(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	ps := c.OpenStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-l", "-c", "pwd"}, "cwd": "/home/user/missing"},
	}, nil)
	f, err := ps.Next()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := f.Msg["error"].(map[string]any)
	if f.Flags != connectrpc.FlagEndStream || e["code"] != "invalid_argument" || !strings.Contains(fmt.Sprint(e["message"]), "cwd '/home/user/missing' does not exist") {
		t.Fatalf("frame %d %v", f.Flags, f.Msg)
	}
}

func TestProcessTimeoutKills(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	res := c.StartProcess(sb, "echo started; sleep 60", nil, map[string]string{"Connect-Timeout-Ms": "500"}).Collect()
	e, _ := res.EndStream["error"].(map[string]any)
	if res.Stdout != "started\n" || e["code"] != "deadline_exceeded" {
		t.Fatalf("timeout result %+v", res)
	}
	emulatortest.Eventually(t, "timed-out process gone", func() bool {
		st, data := c.RPC(sb, "process.Process/List", map[string]any{})
		return st == 200 && !strings.Contains(string(data), "sleep 60")
	})
}

func TestProcessStdinSignalsConnectAndList(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})

	// stdin: SendInput then CloseStdin ends cat.
	cat := c.StartProcess(sb, "cat", map[string]any{"stdin": true}, nil)
	st, data := c.RPC(sb, "process.Process/SendInput", map[string]any{
		"process": map[string]any{"pid": cat.PID}, "input": map[string]any{"stdin": base64.StdEncoding.EncodeToString([]byte("abc\n"))},
	})
	emulatortest.WantStatus(t, "send input", st, data, http.StatusOK)
	st, data = c.RPC(sb, "process.Process/CloseStdin", map[string]any{"process": map[string]any{"pid": cat.PID}})
	emulatortest.WantStatus(t, "close stdin", st, data, http.StatusOK)
	if res := cat.Collect(); res.Stdout != "abc\n" || res.End["exited"] != true {
		t.Fatalf("cat result %+v", res)
	}
	// stdin disabled: SendInput fails.
	noIn := c.StartProcess(sb, "sleep 30", map[string]any{"tag": "sleeper"}, nil)
	st, data = c.RPC(sb, "process.Process/SendInput", map[string]any{
		"process": map[string]any{"pid": noIn.PID}, "input": map[string]any{"stdin": "YQ=="},
	})
	if st != 500 || !strings.Contains(string(data), "stdin not enabled or closed") {
		t.Fatalf("send input without stdin: %d %s", st, data)
	}
	// List shows the tagged process with its config.
	st, data = c.RPC(sb, "process.Process/List", map[string]any{})
	emulatortest.WantStatus(t, "list", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"tag":"sleeper"`) || !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, noIn.PID)) {
		t.Fatalf("list %s", data)
	}
	// Connect re-attaches by tag; SIGTERM ends both streams.
	again := c.OpenStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"tag": "sleeper"}}, nil)
	again.ExpectStart()
	if again.PID != noIn.PID {
		t.Fatalf("connect pid %d, want %d", again.PID, noIn.PID)
	}
	st, data = c.RPC(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": noIn.PID}, "signal": "SIGNAL_SIGTERM"})
	emulatortest.WantStatus(t, "sigterm", st, data, http.StatusOK)
	for _, ps := range []*emulatortest.Stream{noIn, again} {
		res := ps.Collect()
		if res.End["status"] != "signal: terminated" || res.End["exitCode"] != float64(-1) || res.End["exited"] != nil {
			t.Fatalf("terminated end event %v", res.End)
		}
	}
	// Connect to a process that ended recently gets start + end.
	ended := c.OpenStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": noIn.PID}}, nil)
	ended.ExpectStart()
	if res := ended.Collect(); res.End["status"] != "signal: terminated" || res.EndStream == nil {
		t.Fatalf("connect to ended process %+v", res)
	}
	// Unknown pids answer not_found, unary and streaming.
	st, data = c.RPC(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": 1}, "signal": "SIGNAL_SIGKILL"})
	if st != 404 || !strings.Contains(string(data), `"code":"not_found"`) {
		t.Fatalf("signal unknown pid: %d %s", st, data)
	}
	st, data = c.RPC(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": cat.PID}, "signal": "SIGNAL_UNSPECIFIED"})
	if st != 501 {
		t.Fatalf("unspecified signal: %d %s", st, data)
	}
	missing := c.OpenStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": 1}}, nil)
	f, err := missing.Next()
	if err != nil || f.Flags != connectrpc.FlagEndStream || !strings.Contains(fmt.Sprint(f.Msg), "not_found") {
		t.Fatalf("connect unknown: %v %v", f, err)
	}
	// SIGKILL reaches the whole process group (the background child too).
	group := c.StartProcess(sb, "sleep 40 & sleep 41; wait", nil, nil)
	_, pgrp, ok := c.Machine(sb.SandboxID).HostProcess(group.PID)
	if !ok {
		t.Fatalf("the sandbox lists no process %d", group.PID)
	}
	members := func() (alive int) {
		for _, p := range sandboxos.ScanProcs(false) {
			if p.PGRP == pgrp && emulatortest.ProcState(uint32(p.PID)) != "Z" {
				alive++
			}
		}
		return alive
	}
	emulatortest.Eventually(t, "both sleeps run in the group", func() bool { return members() >= 2 })
	st, data = c.RPC(sb, "process.Process/SendSignal", map[string]any{"process": map[string]any{"pid": group.PID}, "signal": "SIGNAL_SIGKILL"})
	emulatortest.WantStatus(t, "sigkill", st, data, http.StatusOK)
	if res := group.Collect(); res.End["status"] != "signal: killed" {
		t.Fatalf("killed end %v", res.End)
	}
	emulatortest.Eventually(t, "background child killed", func() bool { return members() == 0 })
}

func TestProcessKeepaliveAndBackgroundChild(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	res := c.StartProcess(sb, "sleep 2.5; echo done", nil, map[string]string{"Keepalive-Ping-Interval": "1"}).Collect()
	if res.Keepalives == 0 || res.Stdout != "done\n" {
		t.Fatalf("keepalive result %+v", res)
	}
	// A background child holding stdout open must not hold the end event forever.
	bg := c.Run(sb, "sleep 20 & echo parent")
	if bg.Stdout != "parent\n" || bg.End == nil {
		t.Fatalf("background result %+v", bg)
	}
}

func TestKillDropsStreamsWithoutEndStream(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	ps := c.StartProcess(sb, "sleep 60", nil, nil)
	st, data, _ := c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	res := ps.Collect()
	if res.Dropped == nil || res.EndStream != nil {
		t.Fatalf("stream after kill %+v, want dropped without end-stream", res)
	}
}

func TestStreamInputAndPty(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	cat := c.StartProcess(sb, "cat", map[string]any{"stdin": true}, nil)
	var body bytes.Buffer
	for _, msg := range []string{
		fmt.Sprintf(`{"start":{"process":{"pid":%d}}}`, cat.PID),
		`{"data":{"input":{"stdin":"` + base64.StdEncoding.EncodeToString([]byte("streamed")) + `"}}}`,
		`{"keepalive":{}}`,
	} {
		body.WriteByte(0)
		_ = binary.Write(&body, binary.BigEndian, uint32(len(msg)))
		body.WriteString(msg)
	}
	req, _ := http.NewRequest("POST", c.Srv.SandboxURL()+"/process.Process/StreamInput", &body)
	req.Header.Set("Content-Type", "application/connect+json")
	for k, v := range emulatortest.EnvdHeaders(sb) {
		req.Header.Set(k, v)
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ps := emulatortest.NewStream(t, resp)
	if f, err := ps.Next(); err != nil || f.Flags != 0 {
		t.Fatalf("StreamInput response %v %v", f, err)
	}
	if f, err := ps.Next(); err != nil || f.Flags != connectrpc.FlagEndStream || len(f.Msg) != 0 {
		t.Fatalf("StreamInput end %v %v", f, err)
	}
	_ = resp.Body.Close()
	c.RPC(sb, "process.Process/CloseStdin", map[string]any{"process": map[string]any{"pid": cat.PID}})
	if res := cat.Collect(); res.Stdout != "streamed" {
		t.Fatalf("cat got %q", res.Stdout)
	}

	pty := c.OpenStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", "echo out; echo err >&2"}},
		"pty":     map[string]any{"size": map[string]any{"cols": 80, "rows": 24}},
	}, nil)
	pty.ExpectStart()
	var got strings.Builder
	for {
		f, err := pty.Next()
		if err != nil || f.Flags == connectrpc.FlagEndStream {
			break
		}
		if d, ok := f.Msg["event"].(map[string]any)["data"].(map[string]any); ok {
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
	st, data := c.RPC(sb, "process.Process/Update", map[string]any{"process": map[string]any{"pid": cat.PID}, "pty": map[string]any{"size": map[string]any{"cols": 100, "rows": 30}}})
	if st != http.StatusBadRequest || !strings.Contains(string(data), `"code":"failed_precondition"`) {
		t.Fatalf("resize of a process without a terminal: %d %s", st, data)
	}
}

func TestUnknownCommandAndUser(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	for _, cmd := range []string{"/no/such/binary", "no-such-command-here"} {
		ps := c.OpenStream(sb, "process.Process/Start", map[string]any{"process": map[string]any{"cmd": cmd}}, nil)
		f, err := ps.Next()
		e, _ := f.Msg["error"].(map[string]any)
		if err != nil || f.Flags != connectrpc.FlagEndStream || e["code"] != "internal" || !strings.Contains(fmt.Sprint(e["message"]), "error starting process") {
			t.Fatalf("start %s: %v %v", cmd, f.Msg, err)
		}
	}
	h := emulatortest.EnvdHeaders(sb)
	h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte("mallory:"))
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/process.Process/List", map[string]any{}, h)
	if st != 401 || !strings.Contains(string(data), "invalid username: 'mallory'") {
		t.Fatalf("unknown rpc user: %d %s", st, data)
	}
	h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"))
	st, data, _ = c.Request("POST", c.Srv.SandboxURL()+"/process.Process/List", map[string]any{}, h)
	emulatortest.WantStatus(t, "known rpc user", st, data, http.StatusOK)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/files?path=x&username=mallory", nil, emulatortest.EnvdHeaders(sb))
	if st != 401 || !strings.Contains(string(data), "error looking up user 'mallory'") {
		t.Fatalf("unknown files user: %d %s", st, data)
	}
}
