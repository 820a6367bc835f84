package e2b_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// TestOnlyE2BsAnswerIsNotFound runs the same reads against the emulator,
// which answers a missing sandbox and an unknown route the way E2B does, and
// checks that only the answer about the object is a not-found.
func TestOnlyE2BsAnswerIsNotFound(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})

	// E2B's answer: the sandbox does not exist.
	_, err := e.c.GetSandbox(e.ctx, "imissing000000000000")
	if !e2b.IsNotFound(err) || !e2b.IsSandboxGone(err) {
		t.Fatalf("missing sandbox: %v; want a typed not-found", err)
	}

	// A wrong api_url: E2B's server answers 404 for a route it does not have.
	wrong := newClient(t, e.srv.APIURL()+"/v1", e.srv.SandboxURL(), e.srv.APIKey())
	for name, call := range map[string]func() error{
		"get":    func() error { _, err := wrong.GetSandbox(e.ctx, sb.SandboxID); return err },
		"kill":   func() error { return wrong.KillSandbox(e.ctx, sb.SandboxID) },
		"pause":  func() error { return wrong.PauseSandbox(e.ctx, sb.SandboxID) },
		"delete": func() error { return wrong.DeleteSnapshot(e.ctx, "snap:default") },
	} {
		err := call()
		if err == nil || e2b.IsNotFound(err) || e2b.IsSandboxGone(err) {
			t.Fatalf("%s through api_url .../v1: %v; want an error that is not a not-found", name, err)
		}
		if !strings.Contains(err.Error(), e.srv.APIURL()+"/v1/") || !strings.Contains(err.Error(), "check api_url") {
			t.Fatalf("%s: the error must name the URL and the setting to check: %v", name, err)
		}
	}
	if _, err := e.c.GetSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatalf("the sandbox must be untouched: %v", err)
	}

	// A proxy in front that answers 404 in its own words.
	proxy := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(proxy.Close)
	viaProxy := newClient(t, proxy.URL, proxy.URL, e.srv.APIKey())
	if _, err := viaProxy.GetSandbox(e.ctx, sb.SandboxID); err == nil || e2b.IsNotFound(err) || !strings.Contains(err.Error(), proxy.URL) {
		t.Fatalf("proxy 404: %v", err)
	}

	// envd: the daemon's own not_found, and a sandbox_url that routes nowhere.
	if _, err := e.envd(sb).Stat(e.ctx, "/home/user/none"); !e2b.IsNotFound(err) {
		t.Fatalf("missing file: %v; want a typed not-found", err)
	}
	if _, err := e.envd(sb).ReadFile(e.ctx, "/home/user/none.txt", e2b.ReadOptions{}); !e2b.IsNotFound(err) {
		t.Fatalf("missing file download: %v; want a typed not-found", err)
	}
	nowhere := newClient(t, e.srv.APIURL(), e.srv.SandboxURL()+"/nowhere", e.srv.APIKey())
	envd := nowhere.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	if _, err := envd.Stat(e.ctx, "/home/user"); err == nil || e2b.IsNotFound(err) || !strings.Contains(err.Error(), "check sandbox_url") {
		t.Fatalf("stat through a sandbox_url that routes nowhere: %v", err)
	}
	if _, err := envd.ReadFile(e.ctx, "/home/user/none.txt", e2b.ReadOptions{}); err == nil || e2b.IsNotFound(err) {
		t.Fatalf("download through a sandbox_url that routes nowhere: %v", err)
	}
	if err := envd.Remove(e.ctx, "/home/user"); err == nil || e2b.IsNotFound(err) || e2b.IsSandboxNotRunning(err) {
		t.Fatalf("remove through a sandbox_url that routes nowhere: %v", err)
	}
	viaProxyEnvd := viaProxy.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID})
	if ok, err := viaProxyEnvd.Health(e.ctx); err == nil || ok {
		t.Fatalf("health through a proxy answering 404: %v %v; want an error, not 'not running'", ok, err)
	}
}

func newClient(t *testing.T, apiURL, sandboxURL, key string) *e2b.Client {
	t.Helper()
	cfg := e2b.Config{APIKey: key, APIURL: apiURL, SandboxURL: sandboxURL, Version: "test"}
	fastRetries(&cfg)
	c, err := e2b.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
