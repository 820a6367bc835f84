package e2b_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// loseForkAnswers makes E2B carry out every fork and a gateway answer 504 in its place.
func loseForkAnswers(e *env) {
	e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostGateway},
		Routes: []string{"POST /v2/sandboxes/{id}/fork"}})
}

// A fork whose answer a gateway lost is found by what E2B keeps (the source's template and
// metadata, a sandbox new since the fork was sent): one fork, returned, none sent again. A chain
// of such forks, and creates with the same metadata in between, stay apart.
func TestForkLostAnswerSettled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fastRetries)
	source := e.create(t, e2b.CreateSandboxRequest{Metadata: map[string]string{"team": "data"}, Secure: new(true)})
	loseForkAnswers(e)
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })

	parent := source.SandboxID
	forks := map[string]bool{}
	for range 3 { // a chain: each fork the source of the next
		sb, err := e.c.ForkOne(e.ctx, parent, 120)
		if err != nil {
			t.Fatalf("fork of %s behind a lost answer: %v", parent, err)
		}
		if sb.SandboxID == parent || forks[sb.SandboxID] || sb.EnvdAccessToken == "" {
			t.Fatalf("fork of %s settled as %+v", parent, sb)
		}
		forks[sb.SandboxID] = true
		// A create with the same metadata is never taken for a fork.
		e.create(t, e2b.CreateSandboxRequest{Metadata: map[string]string{"team": "data"}})
		parent = sb.SandboxID
	}
	c := e.srv.Counters()
	if n := c.Requests["POST /v2/sandboxes/{id}/fork"]; n != 3 {
		t.Fatalf("forks sent %d times, want 3 (none again)", n)
	}
	if alive := c.SandboxesAlive; alive != 7 {
		t.Fatalf("%d sandboxes alive, want 7 (source, 3 forks, 3 creates)", alive)
	}
}

// A fork found after the caller gave up comes back with the sandbox and a
// *CreateInterruptedError: it exists and must be kept.
func TestForkLostAnswerAfterCallerGaveUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fastRetries)
	source := e.create(t, e2b.CreateSandboxRequest{})
	e.srv.SetFaults(emulator.Faults{AnswerDelay: 2 * time.Second, Routes: []string{"POST /v2/sandboxes/{id}/fork"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	ctx, cancel := context.WithTimeout(e.ctx, time.Second)
	defer cancel()
	sb, err := e.c.ForkOne(ctx, source.SandboxID, 120)
	var interrupted *e2b.CreateInterruptedError
	if sb == nil || !errors.As(err, &interrupted) || interrupted.SandboxID != sb.SandboxID {
		t.Fatalf("fork past the caller's deadline: %+v, %v", sb, err)
	}
	if alive := e.srv.Counters().SandboxesAlive; alive != 2 {
		t.Fatalf("%d sandboxes alive, want 2", alive)
	}
}

// Another client forking the same source while an answer is lost: the two forks cannot be told
// apart, so neither is adopted and both are named.
func TestForkLostAnswerAmbiguousIsReported(t *testing.T) {
	t.Parallel()
	var srv atomic.Pointer[emulator.Server]
	var other atomic.Bool
	e := newEnv(t, fastRetries, func(cfg *e2b.Config) {
		next := cfg.HTTPClient.Transport
		cfg.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(r.URL.Path, "/fork") && other.CompareAndSwap(false, true) {
				// Another client's fork of the same source, at the same moment.
				req, _ := http.NewRequest(http.MethodPost, r.URL.String(), bytes.NewReader([]byte(`{"timeout":60}`)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-Key", srv.Load().APIKey())
				if res, err := http.DefaultClient.Do(req); err == nil {
					res.Body.Close()
				}
			}
			return next.RoundTrip(r)
		})}
	})
	srv.Store(e.srv)
	source := e.create(t, e2b.CreateSandboxRequest{})
	loseForkAnswers(e)
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	sb, err := e.c.ForkOne(e.ctx, source.SandboxID, 120)
	var unsettled *e2b.ForkUnsettledError
	if sb != nil || !errors.As(err, &unsettled) || len(unsettled.Candidates) != 2 {
		t.Fatalf("ambiguous lost fork: %+v, %v", sb, err)
	}
}

// E2B's own 5xx on a fork made nothing: a short search finds nothing, the fork is not sent
// again, and the error is returned.
func TestForkE2BErrorNotResent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, fastRetries)
	source := e.create(t, e2b.CreateSandboxRequest{})
	e.srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500}, Routes: []string{"POST /v2/sandboxes/{id}/fork"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	if sb, err := e.c.ForkOne(e.ctx, source.SandboxID, 120); sb != nil || err == nil {
		t.Fatalf("fork under E2B's 500: %+v, %v", sb, err)
	}
	c := e.srv.Counters()
	if c.Requests["POST /v2/sandboxes/{id}/fork"] != 1 || c.SandboxesAlive != 1 {
		t.Fatalf("fork sent %d times (want 1), %d alive (want 1)", c.Requests["POST /v2/sandboxes/{id}/fork"], c.SandboxesAlive)
	}
}
