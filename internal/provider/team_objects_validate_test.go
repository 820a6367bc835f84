package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// queryReceiver records the query of each webhook delivery.
type queryReceiver struct {
	mu      sync.Mutex
	queries []string
}

func (q *queryReceiver) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queries = append(q.queries, r.URL.RawQuery)
}

func (q *queryReceiver) waitFor(query string, within time.Duration) error {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		q.mu.Lock()
		got := append([]string(nil), q.queries...)
		q.mu.Unlock()
		for _, g := range got {
			if g == query {
				return nil
			}
		}
	}
	return fmt.Errorf("no delivery with query %q within %s", query, within)
}

// A webhook URL may carry a query (E2B takes any absolute http(s) URL): it is accepted at plan
// and E2B delivers to it with the query.
func TestAccWebhook_urlWithQueryDelivers(t *testing.T) {
	srv := newTestEmulator(t)
	rcv := &queryReceiver{}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	cfg := testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_webhook" "q" {
  name                       = "with query"
  url                        = "%s/hook?token=abc123"
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "query-secret"
}

resource "e2b_sandbox" "box" {
  depends_on = [e2b_webhook.q]
  timeout    = "5m"
}
`, hook.URL)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				return rcv.waitFor("token=abc123", 30*time.Second)
			},
		}},
	})
}

// Empty or blank webhook names are refused at plan, as E2B's dashboard refuses them; a
// 300-character volume name is accepted, since E2B's API sets no length limit.
func TestAccTeamObjects_namesAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	webhook := func(name string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_webhook" "w" {
  name                       = %q
  url                        = "https://example.com/hook"
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "s"
}
`, name)
	}
	for _, name := range []string{"", "   "} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      webhook(name),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute\s+name\s+must\s+contain\s+a\s+display\s+name`),
			}},
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testAccProviderBlock(srv) + fmt.Sprintf("resource \"e2b_volume\" \"long\" {\n  name = %q\n}\n",
				strings.Repeat("v", 300)),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	testAccCheckNoRequests(t, srv, "a plan")
}
