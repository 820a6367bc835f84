package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A create whose connection drops after E2B made the sandbox is resolved through the
// idempotency token: exactly one sandbox exists, and it is the one in state.
func TestAccSandbox_droppedCreateIsNotDuplicated(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetFaults(emulator.Faults{DropAfterCreate: 1, Routes: []string{"POST /v2/sandboxes"}})
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{{
		Config: sandboxConfig(srv, ""),
		Check: func(s *terraform.State) error {
			c := srv.Counters()
			if c.SandboxesCreated != 1 || c.SandboxesAlive != 1 {
				return fmt.Errorf("created %d, alive %d; want exactly one", c.SandboxesCreated, c.SandboxesAlive)
			}
			if c.Requests["GET /v2/sandboxes"] == 0 {
				return fmt.Errorf("the dropped create was never looked up by its token (requests: %v)", c.Requests)
			}
			id, err := testAccAttr(s, sbAddr, "id")
			if err != nil {
				return err
			}
			if ids := srv.SandboxIDs(); len(ids) != 1 || ids[0] != id {
				return fmt.Errorf("state has %s, E2B has %v", id, ids)
			}
			return nil
		},
	}}))
}

// When a follow-up call after create fails (here: the pause of paused = true), the sandbox stays
// in state (tainted) rather than being orphaned; the next apply replaces it and nothing leaks.
func TestAccSandbox_failedFollowUpKeepsSandboxInState(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlockWith(srv, "  max_retries = 0") + `resource "e2b_sandbox" "test" {
  paused = true
}
`
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			PreConfig: func() {
				srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500}, Routes: []string{"POST /sandboxes/{id}/pause"}})
			},
			Config:      cfg,
			ExpectError: regexp.MustCompile(`Sandbox created but could not be paused`),
		},
		{
			PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: func(*terraform.State) error {
				if c := srv.Counters(); c.SandboxesCreated != 2 || c.SandboxesAlive != 1 {
					return fmt.Errorf("created %d, alive %d; want 2 created and only the replacement alive", c.SandboxesCreated, c.SandboxesAlive)
				}
				return nil
			},
		},
	}))
}

// slowCreateProxy forwards to the emulator. POST /sandboxes is forwarded on its own context (so
// the sandbox is made even if the caller gives up) and its answer is held back for delay: the
// caller's context ends before it learns the ID.
func slowCreateProxy(t *testing.T, srv *emulator.Server, delay time.Duration) string {
	t.Helper()
	target, err := url.Parse(srv.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || (r.URL.Path != "/sandboxes" && r.URL.Path != "/v2/sandboxes") {
			proxy.ServeHTTP(w, r)
			return
		}
		out, err := http.NewRequestWithContext(context.Background(), r.Method, srv.APIURL()+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(body)
	}))
	t.Cleanup(ps.Close)
	return ps.URL
}

// A create that outlives timeouts.create still ends up in state (tainted) when E2B made the
// sandbox, so nothing is left running unmanaged; the next apply replaces it.
func TestAccSandbox_timedOutCreateKeptInState(t *testing.T) {
	srv := newTestEmulator(t)
	apiURL := slowCreateProxy(t, srv, 3*time.Second)
	cfg := fmt.Sprintf(`provider "e2b" {
  api_key     = %q
  api_url     = %q
  sandbox_url = %q
}
resource "e2b_sandbox" "test" {
  timeouts {
    create = "1s"
  }
}
`, srv.APIKey(), apiURL, srv.SandboxURL())
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)Sandbox creation timed out.*kept in state`),
		},
		{
			Config: strings.Replace(cfg, `create = "1s"`, `create = "1m"`, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: func(*terraform.State) error {
				if c := srv.Counters(); c.SandboxesCreated != 2 || c.SandboxesAlive != 1 {
					return fmt.Errorf("created %d, alive %d; want the timed-out sandbox replaced, not leaked", c.SandboxesCreated, c.SandboxesAlive)
				}
				return nil
			},
		},
	}))
}

// A failed in-place change is not recorded as done: the next plan still wants it.
func TestAccSandbox_failedTimeoutChangeIsRetried(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(timeout string) string {
		return testAccProviderBlockWith(srv, "  max_retries = 0") + fmt.Sprintf("resource \"e2b_sandbox\" \"test\" {\n  timeout = %q\n}\n", timeout)
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: cfg("5m")},
		{
			PreConfig: func() {
				srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500}, Routes: []string{"POST /sandboxes/{id}/timeout"}})
			},
			Config:      cfg("15m"),
			ExpectError: regexp.MustCompile(`Could not change the timeout`),
		},
		{
			PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
			Config:    cfg("15m"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			Check: testAccCheckEndAtAfter(t, srv, 600),
		},
	}))
}
