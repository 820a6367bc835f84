package e2b_test

import (
	"errors"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// TestSandboxEnvdReusesWhatTheClientSaw: after a create, pause, resume or
// kill the client knows how to reach envd without another control-plane read.
func TestSandboxEnvdReusesWhatTheClientSaw(t *testing.T) {
	e := newEnv(t)
	gets := func() int { return e.srv.Counters().Requests["GET /sandboxes/{id}"] }
	sb := e.create(t, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 120, Secure: ptr(true)})

	before := gets()
	envd, err := e.c.SandboxEnvd(e.ctx, sb.SandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user"); err != nil {
		t.Fatalf("stat through the remembered token: %v", err)
	}
	if gets() != before {
		t.Fatalf("SandboxEnvd read the sandbox again right after creating it")
	}

	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SandboxEnvd(e.ctx, sb.SandboxID, ""); !errors.Is(err, e2b.ErrSandboxPaused) {
		t.Fatalf("after pause: err = %v, want ErrSandboxPaused", err)
	}
	if _, _, err := e.c.ConnectSandbox(e.ctx, sb.SandboxID, 120); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SandboxEnvd(e.ctx, sb.SandboxID, ""); err != nil {
		t.Fatalf("after resume: %v", err)
	}
	if gets() != before {
		t.Fatalf("pause and resume made SandboxEnvd read the sandbox (%d GETs)", gets()-before)
	}

	if err := e.c.KillSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SandboxEnvd(e.ctx, sb.SandboxID, ""); !e2b.IsNotFound(err) {
		t.Fatalf("after kill: err = %v, want not found", err)
	}
	if gets() != before+1 {
		t.Fatalf("after kill SandboxEnvd must ask the control plane once, asked %d times", gets()-before)
	}

	// A client that never saw the sandbox reads it once.
	other, err := e2b.New(e2b.Config{APIKey: e.srv.APIKey(), APIURL: e.srv.APIURL(), SandboxURL: e.srv.SandboxURL()})
	if err != nil {
		t.Fatal(err)
	}
	sb2 := e.create(t, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 120})
	before = gets()
	if _, err := other.SandboxEnvd(e.ctx, sb2.SandboxID, ""); err != nil {
		t.Fatal(err)
	}
	if gets() != before+1 {
		t.Fatalf("a fresh client must read the sandbox once, read it %d times", gets()-before)
	}
}
