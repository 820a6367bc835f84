package e2b_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// env is one emulator plus a client whose every exchange is validated
// against E2B's specs.
type env struct {
	srv *emulator.Server
	c   *e2b.Client
	v   *spectest.Validator
	ctx context.Context
}

func fastRetries(cfg *e2b.Config) {
	cfg.RetryMax = new(6)
	cfg.RetryWaitMin = 5 * time.Millisecond
	cfg.RetryWaitMax = 50 * time.Millisecond
	cfg.RequestTimeout = 30 * time.Second
}

// newEnv starts an emulator for t; tune may adjust the client config.
func newEnv(t *testing.T, tune ...func(*e2b.Config)) *env {
	t.Helper()
	return newEnvWith(t, emulator.Options{}, tune...)
}

// newEnvWith is newEnv with an emulator started with opts.
func newEnvWith(t *testing.T, opts emulator.Options, tune ...func(*e2b.Config)) *env {
	t.Helper()
	v := spectest.New(t)
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() {
		seen := v.Seen()
		t.Logf("spec-validated exchanges: %v", seen)
		if seen["control"] == 0 {
			t.Errorf("the spec validator saw no control-plane traffic: %v", seen)
		}
		if n := srv.Counters().EnvdAPIKeySeen; n != 0 {
			t.Errorf("the API key reached envd %d times", n)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("close emulator: %v", err)
		}
	})
	cfg := e2b.Config{
		APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Version: "test",
		HTTPClient: &http.Client{Transport: v.Wrap(cleanhttp.DefaultPooledTransport())},
	}
	fastRetries(&cfg)
	for _, f := range tune {
		f(&cfg)
	}
	c, err := e2b.New(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &env{srv: srv, c: c, v: v, ctx: ctx}
}

// create makes a sandbox and registers its kill.
func (e *env) create(t *testing.T, req e2b.CreateSandboxRequest) *e2b.Sandbox {
	t.Helper()
	if req.TemplateID == "" {
		req.TemplateID = "base"
	}
	if req.Timeout == 0 {
		req.Timeout = 300
	}
	sb, err := e.c.CreateSandbox(e.ctx, req)
	if err != nil {
		t.Fatalf("create sandbox: %v", err)
	}
	return sb
}

func (e *env) envd(sb *e2b.Sandbox) *e2b.Envd {
	return e.c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken, Domain: sb.Domain})
}

func ptr[T any](v T) *T { return &v }
