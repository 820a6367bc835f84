package e2b_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCreateKeepsASandboxItCannotRead: the create took effect but its answer
// was lost, and reading the sandbox back keeps failing. The sandbox is still
// returned (it exists and is billed), and the partial answer is not used to
// reach envd later.
func TestCreateKeepsASandboxItCannotRead(t *testing.T) {
	var failReads atomic.Bool
	e := newEnv(t, func(cfg *e2b.Config) {
		next := cfg.HTTPClient.Transport
		cfg.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if failReads.Load() && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/sandboxes/") {
				return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable",
					Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
					Body: io.NopCloser(strings.NewReader(`{"code":503,"message":"busy"}`))}, nil
			}
			return next.RoundTrip(r)
		})}
	})
	e.srv.SetFaults(emulator.Faults{DropAfterCreate: 1, Routes: []string{"POST /v2/sandboxes"}})
	failReads.Store(true)
	sb, err := e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 120, Secure: ptr(true)})
	if err != nil {
		t.Fatalf("create whose sandbox exists but cannot be read: %v", err)
	}
	alive := e.srv.SandboxIDs()
	if len(alive) != 1 || alive[0] != sb.SandboxID || e.srv.Counters().SandboxesCreated != 1 {
		t.Fatalf("returned %q; alive %v; created %d: want the one sandbox that exists", sb.SandboxID, alive, e.srv.Counters().SandboxesCreated)
	}
	if sb.EnvdAccessToken != "" {
		t.Fatalf("a sandbox known only from the list cannot carry its access token, got %q", sb.EnvdAccessToken)
	}

	e.srv.SetFaults(emulator.Faults{})
	failReads.Store(false)
	before := e.srv.Counters().Requests["GET /sandboxes/{id}"]
	envd, err := e.c.SandboxEnvd(e.ctx, sb.SandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user"); err != nil {
		t.Fatalf("envd with the token read afterwards: %v", err)
	}
	if got := e.srv.Counters().Requests["GET /sandboxes/{id}"] - before; got != 1 {
		t.Fatalf("SandboxEnvd read the sandbox %d times, want once (the partial answer must not be cached)", got)
	}
}
