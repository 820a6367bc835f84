package e2b_test

import (
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestEmulatorSandboxLifecycle(t *testing.T) {
	e := newEnv(t)
	if err := e.c.Health(e.ctx); err != nil {
		t.Fatalf("health: %v", err)
	}
	sb := e.create(t, e2b.CreateSandboxRequest{
		Timeout: 120, AutoPause: ptr(false), AutoResume: ptr(false), Secure: ptr(true), AllowInternetAccess: ptr(true),
		Network:  &e2b.NetworkConfig{AllowOut: []string{"1.1.1.1"}, DenyOut: []string{"10.0.0.0/8"}, MaskRequestHost: "example.com"},
		Metadata: map[string]string{"purpose": "lifecycle"}, EnvVars: map[string]string{"FOO": "bar"},
	})
	if sb.SandboxID == "" || sb.EnvdAccessToken == "" || sb.EnvdVersion == "" {
		t.Fatalf("created %+v", sb)
	}
	d, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != "running" || d.Metadata["purpose"] != "lifecycle" || d.EnvdAccessToken != sb.EnvdAccessToken || d.TemplateID == "" {
		t.Fatalf("detail %+v", d)
	}
	if d.Network == nil || d.Network.MaskRequestHost != "example.com" || strings.Join(d.Network.DenyOut, ",") != "10.0.0.0/8" ||
		d.AllowInternetAccess == nil || !*d.AllowInternetAccess {
		t.Fatalf("network as created: %+v allowInternetAccess %v", d.Network, d.AllowInternetAccess)
	}
	if d.EndAt.Sub(d.StartedAt) < 100*time.Second {
		t.Fatalf("timeout 120 s not applied: %v → %v", d.StartedAt, d.EndAt)
	}
	if err := e.c.SetSandboxTimeout(e.ctx, sb.SandboxID, 600); err != nil {
		t.Fatal(err)
	}
	if d2, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil || !d2.EndAt.After(d.EndAt) {
		t.Fatalf("set timeout did not extend: %v %v", d2, err)
	}
	if err := e.c.UpdateSandboxNetwork(e.ctx, sb.SandboxID, e2b.NetworkUpdate{DenyOut: []string{"0.0.0.0/0"}, AllowOut: []string{"8.8.8.8"}}); err != nil {
		t.Fatalf("update network: %v", err)
	}
	if d3, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil || d3.Network == nil ||
		strings.Join(d3.Network.DenyOut, ",") != "0.0.0.0/0" || strings.Join(d3.Network.AllowOut, ",") != "8.8.8.8" {
		t.Fatalf("network after update: %+v %v", d3, err)
	}

	// Pause: envd answers 502; pausing a paused sandbox succeeds (E2B's 409).
	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatalf("second pause: want success for an already paused sandbox, got %v", err)
	}
	if d, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil || d.State != "paused" {
		t.Fatalf("paused state: %+v %v", d, err)
	}
	envd := e.envd(sb)
	if running, err := envd.Health(e.ctx); err != nil || running {
		t.Fatalf("envd health while paused: %v %v", running, err)
	}
	_, err = envd.Stat(e.ctx, "/home/user")
	if !e2b.IsSandboxNotRunning(err) || !strings.Contains(err.Error(), "is not running") || !strings.Contains(err.Error(), sb.SandboxID) {
		t.Fatalf("envd call on a paused sandbox: %v", err)
	}

	// Connect: 201 resumes, 200 when already running.
	resumed, wasPaused, err := e.c.ConnectSandbox(e.ctx, sb.SandboxID, 300)
	if err != nil || !wasPaused || resumed.SandboxID != sb.SandboxID {
		t.Fatalf("connect paused: %+v %v %v", resumed, wasPaused, err)
	}
	if _, wasPaused, err := e.c.ConnectSandbox(e.ctx, sb.SandboxID, 300); err != nil || wasPaused {
		t.Fatalf("connect running: %v %v", wasPaused, err)
	}
	if running, err := envd.Health(e.ctx); err != nil || !running {
		t.Fatalf("envd health after resume: %v %v", running, err)
	}

	// Kill: 204, then 404 everywhere.
	if err := e.c.KillSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.KillSandbox(e.ctx, sb.SandboxID); !e2b.IsNotFound(err) {
		t.Fatalf("second kill: %v", err)
	}
	_, err = e.c.GetSandbox(e.ctx, sb.SandboxID)
	if !e2b.IsNotFound(err) || !strings.Contains(err.Error(), "get sandbox") || !strings.Contains(err.Error(), sb.SandboxID) {
		t.Fatalf("get killed: %v", err)
	}
	if err := e.c.SetSandboxTimeout(e.ctx, sb.SandboxID, 60); !e2b.IsNotFound(err) {
		t.Fatalf("timeout on killed: %v", err)
	}
	if running, err := envd.Health(e.ctx); err != nil || running {
		t.Fatalf("envd health after kill: %v %v", running, err)
	}
}

func TestEmulatorAutoPauseOnExpiry(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{AutoPause: ptr(true), AutoResume: ptr(true)})
	if err := e.srv.Expire(sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	d, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil || d.State != "paused" || d.Lifecycle == nil || d.Lifecycle.OnTimeout != "pause" || !d.Lifecycle.AutoResume {
		t.Fatalf("after expiry: %+v %v", d, err)
	}
	killed := e.create(t, e2b.CreateSandboxRequest{})
	if err := e.srv.Expire(killed.SandboxID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.GetSandbox(e.ctx, killed.SandboxID); !e2b.IsNotFound(err) {
		t.Fatalf("expired without autoPause must be gone: %v", err)
	}
}

func TestEmulatorFork(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})
	if _, err := e.envd(sb).WriteFile(e.ctx, "/home/user/forked.txt", strings.NewReader("from parent"), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fork, err := e.c.ForkOne(e.ctx, sb.SandboxID, 120)
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	if fork.SandboxID == sb.SandboxID {
		t.Fatalf("the fork is its source: %+v", fork)
	}
	st, err := e.envd(fork).Stat(e.ctx, "/home/user/forked.txt")
	if err != nil || st.Size != int64(len("from parent")) {
		t.Fatalf("fork does not see the parent's file: %+v %v", st, err)
	}
	if _, err := e.c.ForkOne(e.ctx, "inotthere00000000000a", 60); !e2b.IsNotFound(err) {
		t.Fatalf("fork unknown: %v", err)
	}
}
