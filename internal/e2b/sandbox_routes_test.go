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
// touch v1, not even on E2B's 404 for a missing sandbox or template, and a fork of several answers one result per fork, a refusal at the concurrency cap
// among them.
func TestEmulatorV2Only(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, emulator.Options{SandboxRoutesV1Off: true, Limits: emulator.Limits{MaxConcurrentSandboxes: 4}})
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
	out, err := e.c.ForkSandbox(e.ctx, src.SandboxID, 60, 3)
	if err != nil || len(out) != 3 {
		t.Fatalf("fork of 3: %+v, %v", out, err)
	}
	made, refused := 0, 0
	for _, r := range out {
		switch {
		case r.Sandbox != nil:
			made++
		case r.Err != nil && r.Err.StatusCode == 429:
			refused++
		}
	}
	if made != 2 || refused != 1 {
		t.Fatalf("fork of 3 at a cap of 4 with 2 running: %d made, %d refused at the cap", made, refused)
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
	for _, sb := range out {
		if sb.Sandbox != nil {
			_ = e.c.KillSandbox(e.ctx, sb.Sandbox.SandboxID)
		}
	}
}

// Lost answers on v2 create and v2 fork (the emulator carries them out and a gateway's 504 or a
// cut connection takes the answer's place) leave exactly one sandbox each, the one returned:
// no duplicate and no orphan. The same holds on v1 where v2 is missing.
func TestEmulatorLostAnswersOnEitherRoute(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		opts                 emulator.Options
		createRoute, forkRte string
	}{
		{"v2", emulator.Options{SandboxRoutesV1Off: true}, "POST /v2/sandboxes", "POST /v2/sandboxes/{id}/fork"},
		{"v1 fallback", emulator.Options{SandboxRoutesV2Off: true}, "POST /sandboxes", "POST /sandboxes/{id}/fork"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvWith(t, tc.opts, fastRetries)
			e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostDrop, emulator.LostGateway},
				Routes: []string{tc.createRoute, tc.forkRte}})
			src := e.create(t, e2b.CreateSandboxRequest{Metadata: map[string]string{"lost": tc.name}})
			fork, err := e.c.ForkOne(e.ctx, src.SandboxID, 60)
			if err != nil || fork == nil || fork.SandboxID == src.SandboxID {
				t.Fatalf("fork behind a lost answer: %+v, %v", fork, err)
			}
			e.srv.SetFaults(emulator.Faults{})
			t.Cleanup(func() { _ = e.c.KillSandbox(e.ctx, fork.SandboxID) })
			c := e.srv.Counters()
			if c.Requests[tc.createRoute] != 1 || c.Requests[tc.forkRte] != 1 {
				t.Fatalf("create sent %d times, fork %d times: want once each", c.Requests[tc.createRoute], c.Requests[tc.forkRte])
			}
			if c.SandboxesAlive != 2 {
				t.Fatalf("%d sandboxes alive, want 2 (the create and the fork)", c.SandboxesAlive)
			}
		})
	}
}

// v2 create always secures a sandbox, so Secure false goes through v1 while the server has it,
// and fails, saying why, where it does not.
func TestEmulatorUnsecuredCreateUsesV1(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Secure: new(false)})
	if sb.EnvdAccessToken != "" {
		t.Fatalf("secure = false made a secured sandbox: %+v", sb)
	}
	e.create(t, e2b.CreateSandboxRequest{})
	if c := e.srv.Counters(); c.Requests["POST /sandboxes"] != 1 || c.Requests["POST /v2/sandboxes"] != 1 {
		t.Fatalf("creates: v1 %d, v2 %d; want 1 and 1", c.Requests["POST /sandboxes"], c.Requests["POST /v2/sandboxes"])
	}

	v2only := newEnvWith(t, emulator.Options{SandboxRoutesV1Off: true})
	v2only.create(t, e2b.CreateSandboxRequest{}) // the spec validator must see some traffic
	_, err := v2only.c.CreateSandbox(v2only.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Secure: new(false)})
	if err == nil || !strings.Contains(err.Error(), "secure = false needs E2B's deprecated v1 create") {
		t.Fatalf("secure = false without v1: %v", err)
	}
	if c := v2only.srv.Counters(); c.SandboxesAlive != 1 {
		t.Fatalf("%d sandboxes alive, want 1", c.SandboxesAlive)
	}
}
