package e2b_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// gatewayAfterCommit puts a gateway in front of the emulator that passes
// POST /v3/templates on, lets E2B make the template, and answers the client
// 504 (the answer lost behind a gateway). It counts the creates it passed.
func gatewayAfterCommit(t *testing.T, apiURL string) (string, *atomic.Int32) {
	t.Helper()
	target, err := url.Parse(apiURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var creates atomic.Int32
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v3/templates" {
			proxy.ServeHTTP(w, r)
			return
		}
		creates.Add(1)
		harness.ForwardAndLoseAnswer(w, r, apiURL)
	}))
	t.Cleanup(gw.Close)
	return gw.URL, &creates
}

// A create whose answer a gateway lost after E2B made the template: the
// client finds the template by its name, does not send the create again and
// does not adopt what it cannot prove is its own; the error names it.
func TestRequestNewTemplateSettlesALostAnswer(t *testing.T) {
	e := newEnv(t)
	gw, creates := gatewayAfterCommit(t, e.srv.APIURL())
	cfg := e2b.Config{APIKey: e.srv.APIKey(), APIURL: gw, SandboxURL: e.srv.SandboxURL(), Version: "test"}
	fastRetries(&cfg)
	behindGateway, err := e2b.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = behindGateway.RequestNewTemplate(e.ctx, e2b.TemplateRequest{Name: "lost-answer"})
	var unsettled *e2b.TemplateCreateUnsettledError
	if !errors.As(err, &unsettled) {
		t.Fatalf("want a *TemplateCreateUnsettledError, got %v", err)
	}
	made, gerr := e.c.GetTemplate(e.ctx, "lost-answer")
	if gerr != nil {
		t.Fatal(gerr)
	}
	if unsettled.TemplateID != made.TemplateID || creates.Load() != 1 || len(made.Builds) != 1 {
		t.Fatalf("error names %q, E2B made %s with %d builds after %d creates: want the one template, named, created once",
			unsettled.TemplateID, made.TemplateID, len(made.Builds), creates.Load())
	}
}

// A template of the name that another request made after the name was read
// is not this request's: E2B built into it, and the client says so instead
// of taking it over. A template the request made is its own.
func TestRequestNewTemplateRefusesAnotherRequestsTemplate(t *testing.T) {
	e := newEnv(t)
	theirs, err := e.c.RequestTemplateBuild(e.ctx, e2b.TemplateRequest{Name: "raced"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.c.RequestNewTemplate(e.ctx, e2b.TemplateRequest{Name: "raced"})
	var taken *e2b.TemplateTakenError
	if !errors.As(err, &taken) || taken.TemplateID != theirs.TemplateID || taken.FirstBuildID != theirs.BuildID || taken.BuildID == theirs.BuildID {
		t.Fatalf("want a *TemplateTakenError naming %s and its first build %s, got %v", theirs.TemplateID, theirs.BuildID, err)
	}
	mine, err := e.c.RequestNewTemplate(e.ctx, e2b.TemplateRequest{Name: "fresh"})
	if err != nil || mine.TemplateID == theirs.TemplateID {
		t.Fatalf("a new name: %+v, %v", mine, err)
	}
}
