package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// Against a server without the v2 sandbox routes (an older self-hosted E2B), create, connect
// and fork each try v2 once, fall back to v1, and stay on v1 for the client's life.
func TestEmulatorFallsBackToV1WhereV2IsMissing(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, emulator.Options{SandboxRoutesV2Off: true})
	a := e.create(t, e2b.CreateSandboxRequest{})
	e.create(t, e2b.CreateSandboxRequest{})
	for range 2 {
		if err := e.c.PauseSandbox(e.ctx, a.SandboxID); err != nil {
			t.Fatal(err)
		}
		if _, resumed, err := e.c.ConnectSandbox(e.ctx, a.SandboxID, 60); err != nil || !resumed {
			t.Fatalf("connect through v1: resumed %v, %v", resumed, err)
		}
	}
	for range 2 {
		if _, err := e.c.ForkOne(e.ctx, a.SandboxID, 60); err != nil {
			t.Fatalf("fork through v1: %v", err)
		}
	}
	c := e.srv.Counters()
	if c.Requests["unknown"] != 3 {
		t.Fatalf("v2 tried %d times, want once per route (3)", c.Requests["unknown"])
	}
	if c.Requests["POST /sandboxes"] != 2 || c.Requests["POST /sandboxes/{id}/connect"] != 2 || c.Requests["POST /sandboxes/{id}/fork"] != 2 {
		t.Fatalf("v1 requests %v", c.Requests)
	}
	if c.SandboxesAlive != 4 {
		t.Fatalf("%d sandboxes alive, want 4 (2 creates, 2 forks)", c.SandboxesAlive)
	}
}

// A filesystem-only fork needs fork v2: without it the fork fails, nothing is forked, and no
// fork with memory is made in its place.
func TestEmulatorFilesystemOnlyForkNeedsV2(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, emulator.Options{SandboxRoutesV2Off: true})
	src := e.create(t, e2b.CreateSandboxRequest{})
	sb, err := e.c.ForkOneWith(e.ctx, src.SandboxID, e2b.ForkOptions{FilesystemOnly: true})
	if err == nil || sb != nil || !strings.Contains(err.Error(), "/v2/sandboxes/{id}/fork") {
		t.Fatalf("filesystem-only fork without v2: %+v, %v", sb, err)
	}
	c := e.srv.Counters()
	if c.Requests["POST /sandboxes/{id}/fork"] != 0 || c.SandboxesAlive != 1 {
		t.Fatalf("v1 forks %d, alive %d: want 0 and 1", c.Requests["POST /sandboxes/{id}/fork"], c.SandboxesAlive)
	}
}

// Against a server that serves only v2, create, connect and fork (filesystem-only too) never
// touch v1, not even on E2B's 404 for a missing sandbox or template.
func TestEmulatorV2Only(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, emulator.Options{SandboxRoutesV1Off: true})
	src := e.create(t, e2b.CreateSandboxRequest{Secure: new(true)})
	if err := e.c.PauseSandbox(e.ctx, src.SandboxID); err != nil {
		t.Fatal(err)
	}
	if _, resumed, err := e.c.ConnectSandboxWith(e.ctx, src.SandboxID, e2b.ConnectOptions{Timeout: 60, FromDisk: true}); err != nil || !resumed {
		t.Fatalf("connect v2 from disk: resumed %v, %v", resumed, err)
	}
	if _, _, err := e.c.ConnectSandbox(e.ctx, src.SandboxID, 0); err != nil {
		t.Fatalf("connect v2 of a running sandbox with timeout 0: %v", err)
	}
	if _, err := e.c.ForkOneWith(e.ctx, src.SandboxID, e2b.ForkOptions{Timeout: 60, FilesystemOnly: true}); err != nil {
		t.Fatalf("filesystem-only fork: %v", err)
	}
	fork, err := e.c.ForkOne(e.ctx, src.SandboxID, 60)
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	// E2B's 404 about the sandbox or template asked for is an answer, not a missing route.
	if _, _, err := e.c.ConnectSandbox(e.ctx, "inosuchsandbox0000001", 60); !e2b.IsNotFound(err) {
		t.Fatalf("connect of a missing sandbox: %v", err)
	}
	if _, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "nosuchtemplate"}); !e2b.IsNotFound(err) {
		t.Fatalf("create from a missing template: %v", err)
	}
	c := e.srv.Counters()
	if c.Requests["unknown"] != 0 {
		t.Fatalf("%d requests to routes the server lacks", c.Requests["unknown"])
	}
	if c.Requests["POST /v2/sandboxes/{id}/fork"] != 2 {
		t.Fatalf("%d v2 forks, want 2", c.Requests["POST /v2/sandboxes/{id}/fork"])
	}
	_ = e.c.KillSandbox(e.ctx, fork.SandboxID)
}
