package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// default_metadata is merged under the sandbox's own metadata; changing it replaces the sandbox.
func TestAccProvider_defaultMetadata(t *testing.T) {
	srv := testAccBackend(t)
	cfg := func(team string) string {
		return testAccProviderBlockWith(srv, fmt.Sprintf(`  default_metadata = { team = %q, env = "default" }`, team)) + `
resource "e2b_sandbox" "test" {
  metadata = { env = "own" }
}
`
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: cfg("a"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("metadata_all"), testAccMetadataAll(map[string]knownvalue.Check{
					"team": knownvalue.StringExact("a"),
					"env":  knownvalue.StringExact("own"),
				})),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("metadata"), knownvalue.MapExact(map[string]knownvalue.Check{
					"env": knownvalue.StringExact("own"),
				})),
			},
		},
		{
			Config: cfg("b"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("metadata_all"), knownvalue.MapPartial(map[string]knownvalue.Check{
					"team": knownvalue.StringExact("b"),
				})),
			},
		},
	}))
}

// Every bad input fails at plan time with a message naming the problem, and E2B is never called.
func TestAccProvider_badInputsFailAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	cases := []struct {
		body string
		want string
	}{
		{`resource "e2b_sandbox" "x" { timeout = "0s" }`, `timeout must be a duration from 1s\s+to\s+24h`},
		{`resource "e2b_sandbox" "x" { timeout = "25h" }`, `timeout must be a duration from 1s\s+to\s+24h`},
		{`resource "e2b_sandbox" "x" { timeout = "1500ms" }`, `(?s)in whole\s+seconds.*"2s"`},
		{`resource "e2b_sandbox" "x" { timeout = 300 }`, `(?s)Invalid duration.*must\s+be\s+a\s+Go\s+duration\s+with\s+a\s+unit`},
		{`resource "e2b_sandbox" "x" { template = "not a template!" }`, `must be a template ID\s+or\s+name`},
		{`resource "e2b_sandbox" "x" { template = "a/b/c" }`, `must be a template ID\s+or\s+name`},
		{`resource "e2b_sandbox" "x" { network = { deny_out = ["example.com"] } }`, `(?s)must be an IP\s+address\s+or\s+CIDR\s+block.*"example.com"`},
		{`resource "e2b_sandbox" "x" { network = { deny_out = ["10.0.0.0/33"] } }`, `must be an IP\s+address\s+or\s+CIDR`},
		{`resource "e2b_sandbox" "x" { network = { allow_out = ["example.com"] } }`, `Domains in allow_out need deny_out`},
		{`resource "e2b_sandbox" "x" { network = { allow_out = ["bad_host!"] } }`, `must be an IP\s+address,\s+CIDR\s+block\s+or\s+domain`},
		{`resource "e2b_sandbox" "x" {
  secure  = false
  network = { allow_public_traffic = false }
}`, `allow_public_traffic = false needs secure = true`},
		{`resource "e2b_sandbox" "x" { network = { mask_request_host = "bad host:99999" } }`, `mask_request_host|host:port`},
		{`resource "e2b_sandbox" "x" { metadata = { "" = "v" } }`, `(?s)metadata.*string length must be\s+between\s+1\s+and\s+256`},
		{`resource "e2b_sandbox" "x" { metadata = { k = "` + longString(3000) + `" } }`, `string length must be\s+at\s+most\s+2048`},
		{`resource "e2b_sandbox" "x" { metadata = { "e2b-terraform-create-token" = "v" } }`, `(?s)must be none of.*e2b-terraform-create-token`},
		{`resource "e2b_sandbox" "x" { env_vars = { "1BAD" = "v" } }`, `must be an environment\s+variable\s+name`},
		{`data "e2b_sandboxes" "x" { started_after = "yesterday" }`, `Invalid RFC3339 String Value`},
		{`data "e2b_sandboxes" "x" { states = ["stopped"] }`, `value must be one of`},
		{`data "e2b_sandboxes" "x" { states = ["running", "running"] }`, `Duplicate List Value`},
		{`data "e2b_sandbox" "x" { id = "NOT-an-id" }`, `must be an E2B sandbox\s+ID`},
		{`data "e2b_sandbox_logs" "x" {
  sandbox_id = "i123"
  limit      = 5000
}`, `limit value must be between 1 and 1000`},
		{`data "e2b_sandbox_metrics" "x" {
  sandbox_id = "i123"
  start      = "last week"
}`, `Invalid RFC3339 String Value`},
		{`data "e2b_template" "x" {
  template_id = "abc"
  name        = "base"
}`, `(?s)Invalid Attribute Combination.*Exactly one of these attributes`},
		{`data "e2b_sandbox_metrics" "x" {
  sandbox_id = "i123"
  start      = "2026-01-02T00:00:00Z"
  end        = "2026-01-01T00:00:00Z"
}`, `start is after end`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, planErrorStep(testAccProviderBlock(srv)+c.body, c.want))
	}
	testAccRefusedWithoutRequests(t, srv, steps)
}

// Bad provider settings fail at plan time too, naming the setting.
func TestAccProvider_badSettingsFailAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	block := func(settings string) string {
		return fmt.Sprintf("provider \"e2b\" {\n  api_key = %q\n  api_url = %q\n%s\n}\nresource \"e2b_sandbox\" \"x\" {}\n",
			srv.APIKey(), srv.APIURL(), settings)
	}
	cases := []struct{ settings, want string }{
		{"  retry_wait_min = \"2s\"\n  retry_wait_max = \"1s\"", `retry_wait_min \(2s\) must not be longer than\s+retry_wait_max \(1s\)`},
		{`  retry_wait_min = 500`, `(?s)Invalid duration.*must\s+be\s+a\s+Go\s+duration\s+with\s+a\s+unit`},
		{`  retry_wait_max = "11m"`, `retry_wait_max must be a duration from 1ms\s+to\s+10m`},
		{`  request_timeout = "0s"`, `request_timeout must be a duration from 1s\s+to\s+1h`},
		{`  max_retries = 21`, `max_retries value must be between 0 and 20`},
		{`  create_rate_limit = 0`, `create_rate_limit value must be between 0.010000 and\s+1000.000000`},
		{`  sandbox_limit_wait = "2h"`, `sandbox_limit_wait must be a duration from 0s\s+to\s+1h`},
		{`  sandbox_limit_wait = "-1s"`, `sandbox_limit_wait must be a duration from 0s\s+to\s+1h`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, planErrorStep(block(c.settings), c.want))
	}
	testAccRefusedWithoutRequests(t, srv, steps)
}

// max_retries = 0 sends each request once: a 503 is reported, not retried. (A 429 is E2B's rate
// limit, not a failure: every request refused for a rate waits its turn and is sent again until
// its operation's timeout, whatever max_retries says; see TestReadRefusedUntilTheContextEnds in
// internal/e2b and test/chaos's limits tests.)
func TestAccProvider_zeroRetries(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"GET /v2/templates"}})
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config:      testAccProviderBlockWith(srv, "  max_retries = 0") + `data "e2b_templates" "all" {}`,
		ExpectError: regexp.MustCompile(`503`),
	}}))
	if n := srv.Counters().Requests["GET /v2/templates"]; n != 1 {
		t.Errorf("max_retries = 0 sent %d template lists, want exactly 1", n)
	}
}

func longString(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}

// A key E2B rejects gives a plain "invalid key" error.
func TestAccProvider_invalidAPIKey(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: fmt.Sprintf(`provider "e2b" {
  api_key     = "e2b_0000000000000000000000000000000000000000"
  api_url     = %q
  sandbox_url = %q
  max_retries = 0
}
resource "e2b_sandbox" "x" {}
`, srv.APIURL(), srv.SandboxURL()),
		ExpectError: regexp.MustCompile(`(?s)Invalid E2B API key.*invalid or was\s+revoked`),
	}}))
	if c := srv.Counters(); c.SandboxesCreated != 0 {
		t.Errorf("%d sandboxes created with an invalid key", c.SandboxesCreated)
	}
}

// Without a key, validate works (it needs no credentials) and the plan fails with the message the
// apply would give, before any request.
func TestAccProvider_missingAPIKey(t *testing.T) {
	srv := newTestEmulator(t)
	t.Setenv(envAPIKey, "")
	cfg := fmt.Sprintf(`provider "e2b" {
  api_url     = %q
  sandbox_url = %q
}
resource "e2b_sandbox" "x" {}
`, srv.APIURL(), srv.SandboxURL())
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Missing E2B API key.*api_key.*E2B_API_KEY`)},
		{Config: cfg, ExpectError: regexp.MustCompile(`(?s)Missing E2B API key.*api_key.*E2B_API_KEY`)},
	}))
	testAccCheckNoRequests(t, srv, "a configuration without an API key")
}

// Rate limiting (429 with Retry-After) is retried away: the apply succeeds and one sandbox exists.
func TestAccProvider_rateLimitRetried(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetFaults(emulator.Faults{
		ErrorRate: 0.5,
		Statuses:  []int{429},
		Routes:    []string{"POST /v2/sandboxes", "GET /sandboxes/{id}", "DELETE /sandboxes/{id}"},
		Seed:      7,
	})
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{{
		Config: testAccProviderBlockWith(srv, "  max_retries = 10") + `resource "e2b_sandbox" "test" {}`,
		Check: func(*terraform.State) error {
			c := srv.Counters()
			if c.SandboxesCreated != 1 {
				return fmt.Errorf("%d sandboxes created, want exactly 1", c.SandboxesCreated)
			}
			if n := c.Requests["POST /v2/sandboxes"] + c.Requests["GET /sandboxes/{id}"]; n <= 2 {
				return fmt.Errorf("no 429 was injected (%d requests: %v); the test proves nothing", n, c.Requests)
			}
			return nil
		},
	}}))
}
