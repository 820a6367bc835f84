package emulator

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
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

func withFakeClock(c *testClient) *fakeClock {
	f := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	c.srv.limits.mu.Lock()
	c.srv.limits.now = f.now
	c.srv.limits.mu.Unlock()
	return f
}

func TestCreateRateAnswersAsE2B(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{Limits: Limits{CreateRate: 1}})
	clock := withFakeClock(c)
	// A request without the API key is answered before the rate limit and costs nothing.
	st, data, _ := c.request("POST", c.srv.APIURL()+"/sandboxes", map[string]any{"templateID": "base"}, nil)
	wantStatus(t, "create without key", st, data, http.StatusUnauthorized)

	st, data, hdr := c.api("POST", "/sandboxes", map[string]any{"templateID": "base"})
	wantStatus(t, "first create", st, data, http.StatusCreated)
	if hdr.Get("RateLimit-Limit") != "1" || hdr.Get("RateLimit-Remaining") != "0" || hdr.Get("RateLimit-Reset") != "1" || hdr.Get("Retry-After") != "" {
		t.Fatalf("allowed create headers: %v", hdr)
	}
	st, data, hdr = c.api("POST", "/v2/sandboxes", map[string]any{"templateID": "base"})
	wantStatus(t, "second create within the second", st, data, http.StatusTooManyRequests)
	if got := decode[httpjson.ErrorJSON](t, data); got.Code != 429 || got.Message != "Rate limit exceeded" {
		t.Fatalf("refusal body %s", data)
	}
	if hdr.Get("Retry-After") != "1" || hdr.Get("RateLimit-Remaining") != "0" || hdr.Get(FaultHeader) != "" {
		t.Fatalf("refusal headers: %v", hdr)
	}
	// Other routes are not limited by the create rate.
	st, data, _ = c.api("GET", "/v2/sandboxes", nil)
	wantStatus(t, "list", st, data, http.StatusOK)
	clock.advance(time.Second)
	c.create(map[string]any{})
	if r := c.srv.LimitRefusals(); r.CreateRate != 1 || r.APIRate != 0 || r.SandboxLimit != 0 {
		t.Fatalf("refusals %+v", r)
	}
	if n := c.srv.Counters().SandboxesCreated; n != 2 {
		t.Fatalf("%d sandboxes created, want 2: a refused create makes nothing", n)
	}
}

func TestCreateRateLetsABurstThrough(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{Limits: Limits{CreateRate: 5}})
	clock := withFakeClock(c)
	for i := 0; i < 5; i++ {
		c.create(map[string]any{})
	}
	st, data, _ := c.api("POST", "/sandboxes", map[string]any{"templateID": "base"})
	wantStatus(t, "sixth create", st, data, http.StatusTooManyRequests)
	clock.advance(200 * time.Millisecond) // one fifth of a second frees one create
	c.create(map[string]any{})
	st, data, _ = c.api("POST", "/sandboxes", map[string]any{"templateID": "base"})
	wantStatus(t, "create right after", st, data, http.StatusTooManyRequests)
}

func TestAPIRateCountsEveryControlRequest(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{Limits: Limits{APIRequests: 3, APIPeriod: time.Minute}})
	withFakeClock(c)
	for i := 0; i < 3; i++ {
		st, data, hdr := c.api("GET", "/v2/sandboxes", nil)
		wantStatus(t, "list", st, data, http.StatusOK)
		if hdr.Get("RateLimit-Limit") != "3" || hdr.Get("RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Fatalf("request %d headers %v", i, hdr)
		}
	}
	st, data, hdr := c.api("GET", "/sandboxes/inotthere000000000000", nil)
	wantStatus(t, "fourth request", st, data, http.StatusTooManyRequests)
	if hdr.Get("Retry-After") != "20" {
		t.Fatalf("Retry-After %q, want the 20 s until the next request", hdr.Get("Retry-After"))
	}
	st, data, _ = c.request("GET", c.srv.APIURL()+"/health", nil, nil)
	wantStatus(t, "health", st, data, http.StatusOK)
	if r := c.srv.LimitRefusals(); r.APIRate != 1 {
		t.Fatalf("refusals %+v", r)
	}
}

// TestConcurrencyCapCountsRunningSandboxes: creates, resumes and forks over
// the cap get E2B's 429 without Retry-After; paused sandboxes hold no place.
func TestConcurrencyCapCountsRunningSandboxes(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{Limits: Limits{MaxConcurrentSandboxes: 2}})
	a := c.create(map[string]any{})
	b := c.create(map[string]any{})
	const want = "you have reached the maximum number of concurrent E2B sandboxes (2). If you need more, please visit 'https://e2b.dev/docs/billing'"
	refused := func(what string, st int, data []byte, hdr http.Header) {
		t.Helper()
		wantStatus(t, what, st, data, http.StatusTooManyRequests)
		if got := decode[httpjson.ErrorJSON](t, data); got.Code != 429 || got.Message != want {
			t.Fatalf("%s: body %s", what, data)
		}
		if hdr.Get("Retry-After") != "" {
			t.Fatalf("%s: E2B sends no Retry-After at the cap, got %q", what, hdr.Get("Retry-After"))
		}
	}
	st, data, hdr := c.api("POST", "/sandboxes", map[string]any{"templateID": "base"})
	refused("third create", st, data, hdr)

	// A fork over the cap is a 201 whose entry carries the refusal.
	st, data, _ = c.api("POST", "/sandboxes/"+a.SandboxID+"/fork", map[string]any{"count": 1})
	wantStatus(t, "fork at the cap", st, data, http.StatusCreated)
	forks := decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(forks) != 1 || forks[0].Sandbox != nil || forks[0].Error == nil || forks[0].Error.Code != 429 || forks[0].Error.Message != want {
		t.Fatalf("fork at the cap: %s", data)
	}
	st, data, _ = c.api("POST", "/sandboxes/"+a.SandboxID+"/fork", map[string]any{"count": 2})
	wantStatus(t, "fork of as many as the cap", st, data, http.StatusBadRequest)
	if got := decode[httpjson.ErrorJSON](t, data).Message; got != "Count must be lower than the maximum number of concurrent sandboxes (2)" {
		t.Fatalf("fork count message %q", got)
	}

	// Pausing frees a place; resuming needs one.
	st, data, _ = c.api("POST", "/sandboxes/"+b.SandboxID+"/pause", nil)
	wantStatus(t, "pause", st, data, http.StatusNoContent)
	d := c.create(map[string]any{})
	st, data, hdr = c.api("POST", "/sandboxes/"+b.SandboxID+"/connect", map[string]any{"timeout": 60})
	refused("resume by connect", st, data, hdr)
	st, data, hdr = c.api("POST", "/sandboxes/"+b.SandboxID+"/resume", map[string]any{"timeout": 60})
	refused("deprecated resume", st, data, hdr)
	if got := c.detail(b.SandboxID).State; got != sandboxes.Paused {
		t.Fatalf("a refused resume left the sandbox %s", got)
	}
	// A running sandbox's connect only extends it: no new place.
	st, data, _ = c.api("POST", "/sandboxes/"+a.SandboxID+"/connect", map[string]any{"timeout": 60})
	wantStatus(t, "connect to a running sandbox", st, data, http.StatusOK)

	st, data, _ = c.api("DELETE", "/sandboxes/"+d.SandboxID, nil)
	wantStatus(t, "kill", st, data, http.StatusNoContent)
	st, data, _ = c.api("POST", "/sandboxes/"+b.SandboxID+"/connect", map[string]any{"timeout": 60})
	wantStatus(t, "resume with a free place", st, data, http.StatusCreated)
	if r := c.srv.LimitRefusals(); r.SandboxLimit != 4 {
		t.Fatalf("refusals %+v, want 4 at the cap", r)
	}
	if n := c.srv.Counters().SandboxesCreated; n != 3 {
		t.Fatalf("%d sandboxes created, want 3", n)
	}
}

func TestAdminLimitsRoute(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	admin := map[string]string{"Content-Type": "application/json"}
	st, data, _ := c.request("PUT", c.srv.APIURL()+"/_emulator/limits",
		map[string]any{"maxConcurrentSandboxes": 1, "createRate": 2, "apiRequests": 100, "apiPeriod": "10s"}, admin)
	wantStatus(t, "put limits", st, data, http.StatusNoContent)
	st, data, _ = c.request("GET", c.srv.APIURL()+"/_emulator/limits", nil, nil)
	wantStatus(t, "get limits", st, data, http.StatusOK)
	got := decode[Limits](t, data)
	if got != (Limits{MaxConcurrentSandboxes: 1, CreateRate: 2, CreateBurst: 2, APIRequests: 100, APIPeriod: 10 * time.Second}) {
		t.Fatalf("limits %+v", got)
	}
	c.create(map[string]any{})
	st, data, _ = c.api("POST", "/sandboxes", map[string]any{"templateID": "base"})
	wantStatus(t, "create over the cap", st, data, http.StatusTooManyRequests)
	st, data, _ = c.request("GET", c.srv.APIURL()+"/_emulator/limits/refused", nil, nil)
	wantStatus(t, "refused", st, data, http.StatusOK)
	if r := decode[LimitRefusals](t, data); r.SandboxLimit != 1 {
		t.Fatalf("refused %s", data)
	}
	st, data, _ = c.request("PUT", c.srv.APIURL()+"/_emulator/limits", map[string]any{"createRate": -1}, admin)
	wantStatus(t, "negative rate", st, data, http.StatusBadRequest)
	st, data, _ = c.request("DELETE", c.srv.APIURL()+"/_emulator/limits", nil, nil)
	wantStatus(t, "delete limits", st, data, http.StatusNoContent)
	c.create(map[string]any{})
	if _, err := Start(Options{Limits: Limits{MaxConcurrentSandboxes: -1}}); err == nil {
		t.Fatal("Start accepted a negative cap")
	}
}
