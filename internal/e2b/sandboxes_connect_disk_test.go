package e2b_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// ConnectSandboxWith FromDisk sends memory=false: a sandbox paused with its memory comes back
// cold-booted, its files kept and its processes gone.
func TestEmulatorConnectFromDiskColdBoots(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Secure: ptr(true)})
	envd := e.envd(sb)
	if _, err := envd.WriteFile(e.ctx, "/home/user/kept.txt", strings.NewReader("kept"), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: bash("sleep 303"), Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.PID()
	_ = p.Close()
	if before, err := envd.ListProcesses(e.ctx); err != nil || !hasPID(before, pid) {
		t.Fatalf("process %d not running before the pause: %+v %v", pid, before, err)
	}
	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	got, resumed, err := e.c.ConnectSandboxWith(e.ctx, sb.SandboxID, e2b.ConnectOptions{Timeout: 60, FromDisk: true})
	if err != nil || !resumed || got.SandboxID != sb.SandboxID {
		t.Fatalf("connect from disk: resumed %v, %+v, %v", resumed, got, err)
	}
	procs, err := e.envd(got).ListProcesses(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hasPID(procs, pid) {
		t.Fatalf("process %d survived a resume from disk: %+v", pid, procs)
	}
	rc, err := e.envd(got).ReadFile(e.ctx, "/home/user/kept.txt", e2b.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(data) != "kept" {
		t.Fatalf("file after a resume from disk %q", data)
	}
}

func hasPID(procs []e2b.ProcessInfo, pid uint32) bool {
	for _, p := range procs {
		if p.PID == pid {
			return true
		}
	}
	return false
}
