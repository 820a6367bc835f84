package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// templateGateway is a gateway in front of the emulator's API. While
// lose504 is set it passes POST /v3/templates on and answers 504 once E2B
// made the template (the answer lost behind a gateway). With hold, it keeps
// the first two reads of GET /templates/<hold> until both arrived, so that
// two creates both find the name free.
type templateGateway struct {
	url     string
	lose504 atomic.Bool
	creates atomic.Int32
}

func newTemplateGateway(t *testing.T, srv *emulator.Server, hold string) *templateGateway {
	t.Helper()
	target, err := url.Parse(srv.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	g := &templateGateway{}
	var mu sync.Mutex
	held := 0
	both := make(chan struct{})
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case hold != "" && r.Method == http.MethodGet && r.URL.Path == "/templates/"+hold:
			mu.Lock()
			held++
			n := held
			mu.Unlock()
			if n <= 2 {
				// Ask E2B first and hold the answer: both name checks then see the state
				// from before either create, however the two requests are scheduled.
				// The second releases both only once E2B answered it, so the first
				// cannot create in between.
				rec := httptest.NewRecorder()
				proxy.ServeHTTP(rec, r)
				if n == 2 {
					close(both)
				}
				select {
				case <-both:
				case <-time.After(30 * time.Second):
				}
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
		case r.Method == http.MethodPost && r.URL.Path == "/v3/templates":
			g.creates.Add(1)
			if g.lose504.Load() {
				harness.ForwardAndLoseAnswer(w, r, srv.APIURL())
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gw.Close)
	g.url = gw.URL
	return g
}

func (g *templateGateway) providerBlock(srv *emulator.Server) string {
	return testAccProviderBlockAt(srv.APIKey(), g.url, srv.SandboxURL(), "")
}

// A template create whose answer a gateway lost after E2B made the template:
// the apply finds the template by its name, does not take it over (E2B's API
// cannot tell this apply's request from another's at the same moment) and
// fails naming it and how to import it; nothing is created twice. Imported,
// it is managed, and destroy leaves nothing behind.
func TestAccTemplate_lostCreateAnswerIsSettled(t *testing.T) {
	srv := newTestEmulator(t)
	gw := newTemplateGateway(t, srv, "")
	cfg := testAccRequiredProviders() + gw.providerBlock(srv) + `
resource "e2b_template" "app" {
  name          = "acc-lost-answer"
  from_template = "base"
  steps         = [{ run = { command = "echo built" } }]
}
`
	client := testAccClient(t, srv)
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			PreConfig:   func() { gw.lose504.Store(true) },
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)Template create got no answer.*504.*acc-lost-answer.*exists now.*not taken over.*import`),
		},
		{
			PreConfig: func() {
				gw.lose504.Store(false)
				tpl, err := client.GetTemplate(context.Background(), "acc-lost-answer")
				if err != nil || len(tpl.Builds) != 1 || gw.creates.Load() != 1 {
					t.Fatalf("after the lost answer: %+v (%v), %d creates sent; want the one template, created once", tpl, err, gw.creates.Load())
				}
			},
			Config:             cfg,
			ResourceName:       tplAddr,
			ImportState:        true,
			ImportStateId:      "acc-lost-answer",
			ImportStatePersist: true,
		},
		{
			// E2B does not return a template's build inputs: the
			// imported template is built once, in place.
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
			}},
			Check: resource.TestCheckResourceAttr(tplAddr, "build_status", "ready"),
		},
	}))
}

// Two resources naming one template (a module used twice) both find the
// name free and both create: E2B builds the second into the template the
// first made. Exactly one resource owns the template; the other fails
// naming it, is not in state, and so can never delete it.
func TestAccTemplate_twoResourcesOneNameOneOwner(t *testing.T) {
	srv := newTestEmulator(t)
	gw := newTemplateGateway(t, srv, "acc-twice")
	cfg := gw.providerBlock(srv) + testAccTestdata(t, "main.tf")
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)Template made by another resource.*acc-twice.*does not own it`),
		},
		{
			RefreshState:       true,
			ExpectNonEmptyPlan: true, // the resource that does not own the template plans its create again
			Check: func(s *terraform.State) error {
				if gw.creates.Load() != 2 {
					return fmt.Errorf("%d creates reached E2B; the test wants both to find the name free and create", gw.creates.Load())
				}
				tpl, err := testAccClient(t, srv).GetTemplate(context.Background(), "acc-twice")
				if err != nil {
					return err
				}
				var owners []string
				for _, addr := range []string{"e2b_template.a", "e2b_template.b"} {
					if id, err := testAccAttr(s, addr, "template_id"); err == nil {
						if id != tpl.TemplateID {
							return fmt.Errorf("%s owns %s, E2B has %s", addr, id, tpl.TemplateID)
						}
						owners = append(owners, addr)
					}
				}
				if len(owners) != 1 {
					return fmt.Errorf("template %s is in state under %v; want exactly one owner", tpl.TemplateID, owners)
				}
				return nil
			},
		},
	}))
}
