package e2b_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// createInParallel creates n sandboxes at once and returns the errors.
func createInParallel(e *env, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 300})
		}()
	}
	wg.Wait()
	return errs
}

// TestCreatesPacedWithinTheCreateRate: twelve creates at once against one
// create per second (Hobby) all succeed, each sandbox made once, with the
// default retry settings: refusals for the rate are retried until the
// context ends, not max_retries times.
func TestCreatesPacedWithinTheCreateRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *e2b.Config) { cfg.RetryMax, cfg.RetryWaitMin, cfg.RetryWaitMax = nil, 0, 0 })
	e.srv.SetLimits(emulator.Limits{CreateRate: 1})
	for i, err := range createInParallel(e, 12) {
		if err != nil {
			t.Errorf("create %d: %v", i, err)
		}
	}
	if n := e.srv.Counters().SandboxesCreated; n != 12 || len(e.srv.SandboxIDs()) != 12 {
		t.Fatalf("%d sandboxes made, %d alive, want 12", n, len(e.srv.SandboxIDs()))
	}
	if r := e.srv.LimitRefusals(); r.CreateRate == 0 {
		t.Fatal("the emulator refused no create: the test did not reach the rate")
	}
}

// TestCreateRefusedUntilTheContextEnds: a create that E2B keeps refusing
// stops when its context ends and says why.
func TestCreateRefusedUntilTheContextEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.SetLimits(emulator.Limits{CreateRate: 0.001})
	e.create(t, e2b.CreateSandboxRequest{})
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Second)
	defer cancel()
	_, err := e.c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base"})
	if !e2b.IsRateLimited(err) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "for its rate limit") {
		t.Fatalf("create refused until its deadline: %v", err)
	}
	if n := e.srv.Counters().SandboxesCreated; n != 1 {
		t.Fatalf("%d sandboxes made, want 1", n)
	}
}

// TestCreateAtTheSandboxLimit: a create refused at the concurrency cap is
// not retried blindly: with nothing being deleted it fails at once with the
// cap, the team's running count and what this process started.
func TestCreateAtTheSandboxLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 2})
	e.create(t, e2b.CreateSandboxRequest{})
	e.create(t, e2b.CreateSandboxRequest{})
	e.srv.ResetCounters()
	start := time.Now()
	_, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base"})
	var le *e2b.SandboxLimitError
	if !errors.As(err, &le) || !e2b.IsSandboxLimit(err) {
		t.Fatalf("create over the cap: %v", err)
	}
	if le.Limit != 2 || le.Running != 2 || le.Started != 2 || le.Waiting != 1 || le.Stops || le.Op != "create sandbox" {
		t.Fatalf("limit error %+v", le)
	}
	for _, want := range []string{"limit of 2 concurrent sandboxes", "runs 2", "started 2", "you have reached the maximum number of concurrent E2B sandboxes (2)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if n := e.srv.Counters().Requests["POST /v2/sandboxes"]; n != 1 {
		t.Fatalf("the refused create was sent %d times, want once", n)
	}
	if waited := time.Since(start); waited > time.Minute {
		t.Fatalf("waited %s with nothing being deleted", waited)
	}
}

// TestCreateWaitsForADeletion: a create refused at the cap goes through
// once a sandbox this process deletes is gone.
func TestCreateWaitsForADeletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 1})
	first := e.create(t, e2b.CreateSandboxRequest{})
	done := make(chan error, 1)
	go func() {
		_, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base"})
		done <- err
	}()
	for e.srv.LimitRefusals().SandboxLimit == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := e.c.KillSandbox(e.ctx, first.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("create after the deletion freed a place: %v", err)
	}
	if n := e.srv.Counters().SandboxesCreated; n != 2 {
		t.Fatalf("%d sandboxes made, want 2", n)
	}
}

// TestCreateSandboxLimitWaitOfZero: a wait of 0 fails at once even while a
// deletion is under way.
func TestCreateSandboxLimitWaitOfZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *e2b.Config) { cfg.SandboxLimitWait = new(time.Duration(0)) })
	e.srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 1})
	e.create(t, e2b.CreateSandboxRequest{})
	if _, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base"}); !e2b.IsSandboxLimit(err) {
		t.Fatalf("create over the cap: %v", err)
	}
}

// TestResumeAndForkAtTheSandboxLimit: a paused sandbox's resume and a fork
// refused at the cap say the same, and the resume is not retried blindly.
func TestResumeAndForkAtTheSandboxLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *e2b.Config) { cfg.SandboxLimitWait = new(time.Duration(0)) })
	e.srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 2})
	paused := e.create(t, e2b.CreateSandboxRequest{})
	if err := e.c.PauseSandbox(e.ctx, paused.SandboxID); err != nil {
		t.Fatal(err)
	}
	running := e.create(t, e2b.CreateSandboxRequest{})
	e.create(t, e2b.CreateSandboxRequest{})
	e.srv.ResetCounters()

	_, _, err := e.c.ConnectSandbox(e.ctx, paused.SandboxID, 60)
	var le *e2b.SandboxLimitError
	if !errors.As(err, &le) || le.Op != "resume sandbox" || le.SandboxID != paused.SandboxID || le.Limit != 2 || le.Running != 2 {
		t.Fatalf("resume over the cap: %v (%+v)", err, le)
	}
	if n := e.srv.Counters().Requests["POST /v2/sandboxes/{id}/connect"]; n != 1 {
		t.Fatalf("the refused resume was sent %d times, want once", n)
	}

	_, err = e.c.ForkOne(e.ctx, running.SandboxID, 60)
	if !errors.As(err, &le) || le.Op != "fork sandbox" || le.Limit != 2 || !strings.Contains(err.Error(), "maximum number of concurrent E2B sandboxes (2)") {
		t.Fatalf("fork over the cap: %v", err)
	}
	if n := e.srv.Counters().SandboxesCreated; n != 0 {
		t.Fatalf("%d sandboxes made over the cap", n)
	}
}

// TestLostCreateAnswerUnderTheRate: a create let through by the rate whose
// answer is lost is settled by its token as without limits: one sandbox.
func TestLostCreateAnswerUnderTheRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.SetLimits(emulator.Limits{CreateRate: 1, MaxConcurrentSandboxes: 5})
	e.srv.SetFaults(emulator.Faults{DropAfterCreate: 1, Routes: []string{"POST /v2/sandboxes"}})
	sb, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 120})
	if err != nil {
		t.Fatalf("create whose answer was lost: %v", err)
	}
	if alive := e.srv.SandboxIDs(); len(alive) != 1 || alive[0] != sb.SandboxID || e.srv.Counters().SandboxesCreated != 1 {
		t.Fatalf("returned %s; alive %v; made %d: want the one sandbox", sb.SandboxID, alive, e.srv.Counters().SandboxesCreated)
	}
}

// TestReadsPacedWithinTheAPIRate: sixteen reads at once against E2B's API
// rate at 4 requests per 4 s (the emulator's -api-rate 4/4s) all succeed
// with the default retry settings: a refused read waits its turn (the
// rate learned from the refusals, as creates learn theirs) and is sent
// again until its context ends, not max_retries times.
func TestReadsPacedWithinTheAPIRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *e2b.Config) { cfg.RetryMax, cfg.RetryWaitMin, cfg.RetryWaitMax = nil, 0, 0 })
	ids := make([]string, 16)
	for i := range ids {
		ids[i] = e.create(t, e2b.CreateSandboxRequest{}).SandboxID
	}
	e.srv.SetLimits(emulator.Limits{APIRequests: 4, APIPeriod: 4 * time.Second})
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sb *e2b.SandboxDetail
			sb, errs[i] = e.c.GetSandbox(e.ctx, id)
			if errs[i] == nil && sb.SandboxID != id {
				errs[i] = errors.New("read another sandbox: " + sb.SandboxID)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("read %d: %v", i, err)
		}
	}
	refused := e.srv.LimitRefusals().APIRate
	if refused == 0 {
		t.Fatal("the emulator refused no read: the test did not reach the rate")
	}
	// Paced reads are refused about once for each read let through while the pace is learned,
	// not once per read per retry round (16 reads retried together would be refused ~100 times).
	if refused > 3*len(ids) {
		t.Errorf("the emulator refused %d reads for 16 let through: the reads were not paced", refused)
	}
	t.Logf("%d refusals for %d reads", refused, len(ids))
}

// TestReadRefusedUntilTheContextEnds: a read that E2B keeps refusing for its
// API rate stops when its context ends, and the error names E2B's API rate
// limit (not creates).
func TestReadRefusedUntilTheContextEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.create(t, e2b.CreateSandboxRequest{}).SandboxID
	e.srv.SetLimits(emulator.Limits{APIRequests: 1, APIPeriod: time.Hour})
	if _, err := e.c.GetSandbox(e.ctx, id); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Second)
	defer cancel()
	_, err := e.c.GetSandbox(ctx, id)
	if !e2b.IsAPIRateLimited(err) || !e2b.IsRateLimited(err) || !strings.Contains(err.Error(), "API rate limit") ||
		strings.Contains(err.Error(), "create") {
		t.Fatalf("read refused until its deadline: %v", err)
	}
	if n := e.srv.LimitRefusals().APIRate; n < 1 {
		t.Fatalf("the read was refused %d times", n)
	}
}
