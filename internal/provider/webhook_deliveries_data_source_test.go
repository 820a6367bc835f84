package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const deliveriesRoute = "GET /events/webhooks/{id}/deliveries"

// A webhook whose endpoint answers 500 shows failed deliveries: every
// attempt (the first and E2B's 3 retries) of each created event is failed
// with http_error and the 500, the signature is redacted from the recorded
// request headers, the stats count the failures, a page size of 1 pages
// through both events, and filters that match nothing list nothing.
func TestAccWebhookDeliveries_failingEndpoint(t *testing.T) {
	srv := newTestEmulatorWith(t, emulator.Options{WebhookRetryInterval: 10 * time.Millisecond})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "endpoint is down", http.StatusInternalServerError)
	}))
	defer down.Close()
	const events, attemptsEach = 2, 4
	waitForAttempts := func() {
		deadline := time.Now().Add(30 * time.Second)
		for countAttempts(t, srv) < events*attemptsEach {
			if time.Now().After(deadline) {
				t.Fatalf("%d delivery attempts recorded after 30s, want %d", countAttempts(t, srv), events*attemptsEach)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	var pagesBefore int
	attempt := "data.e2b_webhook_deliveries.failed"
	hookURL := config.Variables{"hook_url": config.StringVariable(down.URL)}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: testAccProviderBlock(srv) + testAccTestdata(t, "hook.tf"), ConfigVariables: hookURL},
			{
				PreConfig: func() {
					waitForAttempts()
					pagesBefore = srv.Counters().Requests[deliveriesRoute]
				},
				Config:          testAccProviderBlock(srv) + testAccTestdata(t, "hook.tf", "deliveries.tf"),
				ConfigVariables: hookURL,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("events"), knownvalue.ListSizeExact(events)),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("attempts"), knownvalue.Int64Exact(events*attemptsEach)),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("failed_attempts"), knownvalue.Int64Exact(events*attemptsEach)),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("events").AtSliceIndex(0).AtMapKey("delivered"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("events").AtSliceIndex(0).AtMapKey("event_type"), knownvalue.StringExact("sandbox.lifecycle.created")),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("events").AtSliceIndex(1).AtMapKey("attempts"), knownvalue.ListSizeExact(attemptsEach)),
					statecheck.ExpectKnownValue(attempt, tfjsonpath.New("events").AtSliceIndex(1).AtMapKey("attempts").AtSliceIndex(3), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"status": knownvalue.StringExact("failed"), "error_class": knownvalue.StringExact("http_error"),
						"response_status_code": knownvalue.Int64Exact(500), "response_body": knownvalue.StringExact("endpoint is down\n"),
						"request_url": knownvalue.StringExact(down.URL), "error_message": knownvalue.Null(),
					})),
					statecheck.ExpectKnownValue("data.e2b_webhook_deliveries.killed", tfjsonpath.New("events"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.e2b_webhook_deliveries.succeeded", tfjsonpath.New("events"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.e2b_webhook_deliveries.future", tfjsonpath.New("events"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.e2b_webhook_stats.down", tfjsonpath.New("total"), knownvalue.Int64Exact(events*attemptsEach)),
					statecheck.ExpectKnownValue("data.e2b_webhook_stats.down", tfjsonpath.New("failed"), knownvalue.Int64Exact(events*attemptsEach)),
					statecheck.ExpectKnownValue("data.e2b_webhook_stats.down", tfjsonpath.New("buckets"), knownvalue.NotNull()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrWith(attempt, "events.0.attempts.0.request_headers", func(v string) error {
						if !strings.Contains(v, `"E2b-Signature":"[REDACTED]"`) || strings.Contains(v, "down-hook-secret") {
							return fmt.Errorf("request headers %s: want the signature redacted and no secret", v)
						}
						return nil
					}),
					resource.TestCheckResourceAttrWith("data.e2b_webhook_stats.down", "duration_maximum", func(v string) error {
						if _, err := time.ParseDuration(v); err != nil {
							return fmt.Errorf("duration_maximum %q: %v", v, err)
						}
						return nil
					}),
					func(*terraform.State) error {
						// Each read of the paged data source asks once per event.
						if n := srv.Counters().Requests[deliveriesRoute] - pagesBefore; n < events+3 {
							return fmt.Errorf("%d delivery list requests, want a page per event (%d) for the paged data source besides one per other data source", n, events)
						}
						return nil
					},
				),
			},
		},
	})
}

// countAttempts counts the attempts the emulator recorded for its webhooks.
func countAttempts(t *testing.T, srv *emulator.Server) int {
	t.Helper()
	c := testAccClient(t, srv)
	hooks, err := c.ListWebhooks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range hooks {
		groups, err := c.ListWebhookDeliveries(t.Context(), h.WebhookID, e2b.WebhookDeliveryQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			n += len(g.Attempts)
		}
	}
	return n
}

// Bad filters are refused at plan time naming the attribute, with no
// request to E2B.
func TestAccWebhookDeliveries_badFiltersAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ body, want string }{
		{`statuses = ["pending"]`, `(?s)statuses.*value must be one\s+of`},
		{`event_types = ["sandbox.lifecycle.exploded"]`, `(?s)event_types.*value must be one\s+of`},
		{`page_size = 101`, `(?s)page_size.*between 1 and 100`},
		{`limit = 0`, `(?s)limit.*between 1 and 10000`},
		{"start = \"2030-01-02T00:00:00Z\"\n  end = \"2030-01-01T00:00:00Z\"", `(?s)Invalid time range.*must be after start`},
		{`start = "yesterday"`, `(?s)start.*RFC3339`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: testAccProviderBlock(srv) + fmt.Sprintf(`
data "e2b_webhook_deliveries" "bad" {
  webhook_id = "00000000-0000-4000-8000-000000000000"
  %s
}
data "e2b_webhook_stats" "ok" {
  webhook_id = "00000000-0000-4000-8000-000000000000"
  end        = "2030-01-01T00:00:00Z"
}
`, tc.body),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	if n, routes := totalRequests(srv); n != 0 {
		t.Fatalf("%d requests reached E2B for configurations refused at plan time: %s", n, routes)
	}
}
