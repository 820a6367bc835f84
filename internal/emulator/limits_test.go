package emulator_test

import (
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// fakeClock drives the rate buckets, so that no test depends on how fast
// the machine answers.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func withFakeClock(c *emulatortest.Client) *fakeClock {
	f := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	emulator.SetLimitsClock(c.Srv, f.now)
	return f
}

func TestCreateRateAnswersAsE2B(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{CreateRate: 1}})
	clock := withFakeClock(c)
	// A request without the API key is answered before the rate limit and costs nothing.
	st, data, _ := c.Request("POST", c.Srv.APIURL()+"/sandboxes", map[string]any{"templateID": "base"}, nil)
	emulatortest.WantStatus(t, "create without key", st, data, http.StatusUnauthorized)

	st, data, hdr := c.API("POST", "/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "first create", st, data, http.StatusCreated)
	if hdr.Get("RateLimit-Limit") != "1" || hdr.Get("RateLimit-Remaining") != "0" || hdr.Get("RateLimit-Reset") != "1" || hdr.Get("Retry-After") != "" {
		t.Fatalf("allowed create headers: %v", hdr)
	}
	st, data, hdr = c.API("POST", "/v2/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "second create within the second", st, data, http.StatusTooManyRequests)
	if got := emulatortest.Decode[httpjson.ErrorJSON](t, data); got.Code != 429 || got.Message != "Rate limit exceeded" {
		t.Fatalf("refusal body %s", data)
	}
	if hdr.Get("Retry-After") != "1" || hdr.Get("RateLimit-Remaining") != "0" || hdr.Get(emulator.FaultHeader) != "" {
		t.Fatalf("refusal headers: %v", hdr)
	}
	// Other routes are not limited by the create rate.
	st, data, _ = c.API("GET", "/v2/sandboxes", nil)
	emulatortest.WantStatus(t, "list", st, data, http.StatusOK)
	clock.advance(time.Second)
	c.Create(map[string]any{})
	if r := c.Srv.LimitRefusals(); r.CreateRate != 1 || r.APIRate != 0 || r.SandboxLimit != 0 {
		t.Fatalf("refusals %+v", r)
	}
	if n := c.Srv.Counters().SandboxesCreated; n != 2 {
		t.Fatalf("%d sandboxes created, want 2: a refused create makes nothing", n)
	}
}

func TestCreateRateLetsABurstThrough(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{CreateRate: 5}})
	clock := withFakeClock(c)
	for i := 0; i < 5; i++ {
		c.Create(map[string]any{})
	}
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "sixth create", st, data, http.StatusTooManyRequests)
	clock.advance(200 * time.Millisecond) // one fifth of a second frees one create
	c.Create(map[string]any{})
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "create right after", st, data, http.StatusTooManyRequests)
}

func TestAPIRateCountsEveryControlRequest(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{APIRequests: 3, APIPeriod: time.Minute}})
	withFakeClock(c)
	for i := 0; i < 3; i++ {
		st, data, hdr := c.API("GET", "/v2/sandboxes", nil)
		emulatortest.WantStatus(t, "list", st, data, http.StatusOK)
		if hdr.Get("RateLimit-Limit") != "3" || hdr.Get("RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Fatalf("request %d headers %v", i, hdr)
		}
	}
	st, data, hdr := c.API("GET", "/sandboxes/inotthere000000000000", nil)
	emulatortest.WantStatus(t, "fourth request", st, data, http.StatusTooManyRequests)
	if hdr.Get("Retry-After") != "20" {
		t.Fatalf("Retry-After %q, want the 20 s until the next request", hdr.Get("Retry-After"))
	}
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/health", nil, nil)
	emulatortest.WantStatus(t, "health", st, data, http.StatusOK)
	if r := c.Srv.LimitRefusals(); r.APIRate != 1 {
		t.Fatalf("refusals %+v", r)
	}
}

// TestForkOfSeveralAtTheCap: a fork of several that reaches the concurrency cap is one 201 with
// one entry per fork, the sandboxes that fit and E2B's 429 for the rest.
func TestForkOfSeveralAtTheCap(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{MaxConcurrentSandboxes: 4}})
	src := c.Create(map[string]any{})
	c.Create(map[string]any{})
	st, data, _ := c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 3, "timeout": 60})
	emulatortest.WantStatus(t, "fork of 3 at a cap of 4 with 2 running", st, data, http.StatusCreated)
	made, refused := 0, 0
	for _, f := range emulatortest.Decode[[]controlplane.SandboxForkResultJSON](t, data) {
		switch {
		case f.Sandbox != nil && f.Error == nil:
			made++
		case f.Sandbox == nil && f.Error != nil && f.Error.Code == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("fork entry with both or neither of a sandbox and an error: %s", data)
		}
	}
	if made != 2 || refused != 1 {
		t.Fatalf("fork of 3 at a cap of 4 with 2 running: %d made, %d refused at the cap (%s)", made, refused, data)
	}
	if n := c.Srv.Counters().SandboxesAlive; n != 4 {
		t.Fatalf("%d sandboxes alive, want 4", n)
	}
}

// TestConcurrencyCapCountsRunningSandboxes: creates, resumes and forks over
// the cap get E2B's 429 with Retry-After (the newest spec gives every 429 one);
// paused sandboxes hold no place.
func TestConcurrencyCapCountsRunningSandboxes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{MaxConcurrentSandboxes: 2}})
	a := c.Create(map[string]any{})
	b := c.Create(map[string]any{})
	const want = "you have reached the maximum number of concurrent E2B sandboxes (2). If you need more, please visit 'https://e2b.dev/docs/billing'"
	refused := func(what string, st int, data []byte, hdr http.Header) {
		t.Helper()
		emulatortest.WantStatus(t, what, st, data, http.StatusTooManyRequests)
		if got := emulatortest.Decode[httpjson.ErrorJSON](t, data); got.Code != 429 || got.Message != want {
			t.Fatalf("%s: body %s", what, data)
		}
		if hdr.Get("Retry-After") != "1" {
			t.Fatalf("%s: Retry-After %q, want 1", what, hdr.Get("Retry-After"))
		}
	}
	st, data, hdr := c.API("POST", "/sandboxes", map[string]any{"templateID": "base"})
	refused("third create", st, data, hdr)

	// A fork over the cap is a 201 whose entry carries the refusal.
	st, data, _ = c.API("POST", "/sandboxes/"+a.SandboxID+"/fork", map[string]any{"count": 1})
	emulatortest.WantStatus(t, "fork at the cap", st, data, http.StatusCreated)
	forks := emulatortest.Decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(forks) != 1 || forks[0].Sandbox != nil || forks[0].Error == nil || forks[0].Error.Code != 429 || forks[0].Error.Message != want {
		t.Fatalf("fork at the cap: %s", data)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+a.SandboxID+"/fork", map[string]any{"count": 2})
	emulatortest.WantStatus(t, "fork of as many as the cap", st, data, http.StatusBadRequest)
	if got := emulatortest.Decode[httpjson.ErrorJSON](t, data).Message; got != "Count must be lower than the maximum number of concurrent sandboxes (2)" {
		t.Fatalf("fork count message %q", got)
	}

	// Pausing frees a place; resuming needs one.
	st, data, _ = c.API("POST", "/sandboxes/"+b.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	d := c.Create(map[string]any{})
	st, data, hdr = c.API("POST", "/sandboxes/"+b.SandboxID+"/connect", map[string]any{"timeout": 60})
	refused("resume by connect", st, data, hdr)
	st, data, hdr = c.API("POST", "/sandboxes/"+b.SandboxID+"/resume", map[string]any{"timeout": 60})
	refused("deprecated resume", st, data, hdr)
	if got := c.Detail(b.SandboxID).State; got != sandboxes.Paused {
		t.Fatalf("a refused resume left the sandbox %s", got)
	}
	// A running sandbox's connect only extends it: no new place.
	st, data, _ = c.API("POST", "/sandboxes/"+a.SandboxID+"/connect", map[string]any{"timeout": 60})
	emulatortest.WantStatus(t, "connect to a running sandbox", st, data, http.StatusOK)

	st, data, _ = c.API("DELETE", "/sandboxes/"+d.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	st, data, _ = c.API("POST", "/sandboxes/"+b.SandboxID+"/connect", map[string]any{"timeout": 60})
	emulatortest.WantStatus(t, "resume with a free place", st, data, http.StatusCreated)
	if r := c.Srv.LimitRefusals(); r.SandboxLimit != 4 {
		t.Fatalf("refusals %+v, want 4 at the cap", r)
	}
	if n := c.Srv.Counters().SandboxesCreated; n != 3 {
		t.Fatalf("%d sandboxes created, want 3", n)
	}
}

func TestAdminLimitsRoute(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	admin := map[string]string{"Content-Type": "application/json"}
	st, data, _ := c.Request("PUT", c.Srv.APIURL()+"/_emulator/limits",
		map[string]any{"maxConcurrentSandboxes": 1, "createRate": 2, "apiRequests": 100, "apiPeriod": "10s"}, admin)
	emulatortest.WantStatus(t, "put limits", st, data, http.StatusNoContent)
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/_emulator/limits", nil, nil)
	emulatortest.WantStatus(t, "get limits", st, data, http.StatusOK)
	got := emulatortest.Decode[emulator.Limits](t, data)
	if got != (emulator.Limits{MaxConcurrentSandboxes: 1, CreateRate: 2, CreateBurst: 2, APIRequests: 100, APIPeriod: 10 * time.Second}) {
		t.Fatalf("limits %+v", got)
	}
	c.Create(map[string]any{})
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "create over the cap", st, data, http.StatusTooManyRequests)
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/_emulator/limits/refused", nil, nil)
	emulatortest.WantStatus(t, "refused", st, data, http.StatusOK)
	if r := emulatortest.Decode[emulator.LimitRefusals](t, data); r.SandboxLimit != 1 {
		t.Fatalf("refused %s", data)
	}
	st, data, _ = c.Request("PUT", c.Srv.APIURL()+"/_emulator/limits", map[string]any{"createRate": -1}, admin)
	emulatortest.WantStatus(t, "negative rate", st, data, http.StatusBadRequest)
	st, data, _ = c.Request("DELETE", c.Srv.APIURL()+"/_emulator/limits", nil, nil)
	emulatortest.WantStatus(t, "delete limits", st, data, http.StatusNoContent)
	c.Create(map[string]any{})
	if _, err := emulator.Start(emulator.Options{Limits: emulator.Limits{MaxConcurrentSandboxes: -1}}); err == nil {
		t.Fatal("Start accepted a negative cap")
	}
}
