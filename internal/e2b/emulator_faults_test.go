package e2b_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

func TestEmulatorRejectsAWrongAPIKey(t *testing.T) {
	e := newEnv(t, func(c *e2b.Config) { c.APIKey = "e2b_00000000000000000000000000000000000000ff" })
	_, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{})
	if !e2b.IsUnauthorized(err) || !strings.Contains(err.Error(), "API key was rejected") || !strings.Contains(err.Error(), "list sandboxes") {
		t.Fatalf("wrong key: %v", err)
	}
	if n := e.srv.Counters().Requests["GET /v2/sandboxes"]; n != 1 {
		t.Fatalf("401 retried: %d requests", n)
	}
}

func TestEmulatorBadRequestAndConflict(t *testing.T) {
	e := newEnv(t)
	_, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 48 * 3600})
	if !e2b.IsBadRequest(err) || !strings.Contains(err.Error(), "create sandbox") {
		t.Fatalf("timeout above the maximum: %v", err)
	}
	_, err = e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "no-such-template", Timeout: 60})
	if !e2b.IsNotFound(err) {
		t.Fatalf("unknown template: %v", err)
	}
	if n := e.srv.Counters().Requests["POST /v2/sandboxes"]; n != 2 {
		t.Fatalf("4xx creates retried: %d requests", n)
	}
}

func TestEmulatorRateLimitsAreAbsorbed(t *testing.T) {
	e := newEnv(t, func(c *e2b.Config) { c.RetryMax = new(30) })
	sb := e.create(t, e2b.CreateSandboxRequest{})
	e.srv.ResetCounters()
	e.srv.SetFaults(emulator.Faults{ErrorRate: 0.5, Statuses: []int{429}, Seed: 7,
		Routes: []string{"POST /v2/sandboxes", "GET /sandboxes/{id}", "POST /sandboxes/{id}/pause", "envd"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })

	created := e.create(t, e2b.CreateSandboxRequest{}) // POST: only 429 is retried, and it is
	for range 5 {
		if _, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil {
			t.Fatalf("get under 429s: %v", err)
		}
		if _, err := e.envd(sb).Stat(e.ctx, "/home/user"); err != nil {
			t.Fatalf("envd under 429s: %v", err)
		}
	}
	if err := e.c.PauseSandbox(e.ctx, created.SandboxID); err != nil {
		t.Fatalf("pause under 429s: %v", err)
	}
	c := e.srv.Counters()
	if c.Requests["GET /sandboxes/{id}"] <= 5 {
		t.Fatalf("no 429 was injected on GET (requests %d); the test proves nothing", c.Requests["GET /sandboxes/{id}"])
	}
	if alive := c.SandboxesAlive; alive != 2 {
		t.Fatalf("%d sandboxes alive, want 2", alive)
	}
}

func TestEmulatorServerErrorsRetriedOnlyWhenIdempotent(t *testing.T) {
	e := newEnv(t, func(c *e2b.Config) { c.RetryMax = new(3) })
	sb := e.create(t, e2b.CreateSandboxRequest{})
	e.srv.ResetCounters()
	e.srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500, 503}, Seed: 1,
		Routes: []string{"POST /v2/sandboxes", "GET /sandboxes/{id}", "POST /v2/sandboxes/{id}/fork"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })

	_, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	var apiErr *e2b.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode < 500 {
		t.Fatalf("get under permanent 5xx: %v", err)
	}
	_, err = e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 60})
	if err == nil {
		t.Fatal("create under permanent 5xx succeeded")
	}
	_, err = e.c.ForkOne(e.ctx, sb.SandboxID, 60)
	if err == nil {
		t.Fatal("fork under permanent 5xx succeeded")
	}
	// E2B's own 5xx on create: the client made sure nothing exists (the token
	// lookup) before each new attempt. A fork whose source cannot be read is
	// never sent: its answer, if lost, could not be settled
	// (TestForkE2BErrorNotResent has a fork's own 5xx).
	c := e.srv.Counters()
	if c.Requests["GET /sandboxes/{id}"] != 8 || c.Requests["POST /v2/sandboxes"] != 4 || c.Requests["POST /v2/sandboxes/{id}/fork"] != 0 {
		t.Fatalf("attempts: GET %d (want 1+3 twice), create %d (want 1+3), fork %d (want 0)",
			c.Requests["GET /sandboxes/{id}"], c.Requests["POST /v2/sandboxes"], c.Requests["POST /v2/sandboxes/{id}/fork"])
	}
	if c.Requests["GET /v2/sandboxes"] < 4 || c.SandboxesCreated != 0 {
		t.Fatalf("lookups %d (want one per failed create at least), created %d (want 0)",
			c.Requests["GET /v2/sandboxes"], c.SandboxesCreated)
	}

	// Transient 5xx and dropped connections on an idempotent call are absorbed.
	e.srv.SetFaults(emulator.Faults{ErrorRate: 0.3, DropRate: 0.3, Statuses: []int{502, 503}, Seed: 3,
		Routes: []string{"GET /sandboxes/{id}", "GET /v2/sandboxes"}})
	for range 5 {
		if _, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil {
			t.Fatalf("get under transient faults: %v", err)
		}
	}
	if _, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{Limit: 1}); err != nil {
		t.Fatalf("list under transient faults: %v", err)
	}
}

func TestEmulatorIdempotentCreateAfterDroppedConnection(t *testing.T) {
	e := newEnv(t)
	e.srv.ResetCounters()
	e.srv.SetFaults(emulator.Faults{DropAfterCreate: 1, Routes: []string{"POST /v2/sandboxes"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })

	sb, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{
		TemplateID: "base", Timeout: 300, Secure: ptr(true),
		Metadata: map[string]string{"owner": "idempotency-test"},
	})
	if err != nil {
		t.Fatalf("create with token after a dropped answer: %v", err)
	}
	c := e.srv.Counters()
	if c.SandboxesCreated != 1 || c.SandboxesAlive != 1 {
		t.Fatalf("created %d, alive %d: want exactly one sandbox", c.SandboxesCreated, c.SandboxesAlive)
	}
	if c.Requests["POST /v2/sandboxes"] != 1 {
		t.Fatalf("create sent %d times; the token lookup should have found it", c.Requests["POST /v2/sandboxes"])
	}
	d, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil || d.Metadata["owner"] != "idempotency-test" {
		t.Fatalf("found sandbox %+v %v", d, err)
	}
	if _, ok := d.Metadata[e2b.IdempotencyMetadataKey]; ok {
		t.Fatalf("the client's create token leaked into the metadata it returns: %v", d.Metadata)
	}
	if sb.EnvdAccessToken == "" || sb.EnvdAccessToken != d.EnvdAccessToken {
		t.Fatalf("the found sandbox must carry its envd token: %q", sb.EnvdAccessToken)
	}
	if _, err := e.envd(sb).Stat(e.ctx, "/home/user"); err != nil {
		t.Fatalf("envd of the found sandbox: %v", err)
	}
}

// TestSlowCreateBehindAGatewayIsNotCreatedTwice settles the first suspected
// path: a gateway answers 504 while E2B is still making the sandbox, which
// appears only later. The client keeps looking for its create token instead
// of sending the create again, and so never makes a second sandbox.
func TestSlowCreateBehindAGatewayIsNotCreatedTwice(t *testing.T) {
	e := newEnv(t)
	e.srv.ResetCounters()
	e.srv.SetFaults(emulator.Faults{CreateDelay: 1500 * time.Millisecond, GatewayTimeout: 100 * time.Millisecond,
		Routes: []string{"POST /v2/sandboxes"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })

	sb, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 300})
	if err != nil {
		t.Fatalf("create behind a gateway that timed out: %v", err)
	}
	c := e.srv.Counters()
	if c.Requests["POST /v2/sandboxes"] != 1 || c.SandboxesCreated != 1 || c.FaultsInjected != 1 {
		t.Fatalf("creates sent %d, sandboxes made %d, gateway timeouts %d: want 1, 1, 1",
			c.Requests["POST /v2/sandboxes"], c.SandboxesCreated, c.FaultsInjected)
	}
	if ids := e.srv.SandboxIDs(); len(ids) != 1 || ids[0] != sb.SandboxID {
		t.Fatalf("alive %v, returned %s", ids, sb.SandboxID)
	}
}
