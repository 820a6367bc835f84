package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A network changed outside Terraform (E2B's update-network API) is drift: refresh reads it, so
// plan shows the change back and apply -refresh-only records it. A refresh with nothing changed
// plans nothing, egress proxy and its password version included.
func TestAccSandbox_networkDrift(t *testing.T) {
	srv := testAccBackend(t)
	var id string
	cfg := sandboxConfig(srv, `network = {
    allow_out = ["localhost"]
    deny_out  = ["0.0.0.0/0"]
    rules     = { "localhost" = { headers = { X-Team = "data" } } }
    egress_proxy = {
      address             = "127.0.0.1:1080"
      username            = "u"
      password_wo         = "secret"
      password_wo_version = 1
    }
  }`)
	opened := func(t *testing.T) {
		// What another client does: removes the deny-all, the rule and the proxy.
		if err := testAccClient(t, srv).UpdateSandboxNetwork(context.Background(), id, e2b.NetworkUpdate{
			AllowOut: []string{}, DenyOut: []string{}}); err != nil {
			t.Fatalf("update network: %v", err)
		}
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: cfg,
			Check:  captureAttr(sbAddr, "id", &id),
		},
		{
			// Refresh with nothing changed: no change planned.
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
		{
			PreConfig:          func() { opened(t) },
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		{
			// apply -refresh-only records what E2B holds.
			RefreshState:       true,
			Check:              resource.TestCheckNoResourceAttr(sbAddr, "network.deny_out.#"),
			ExpectNonEmptyPlan: true,
		},
		{
			// The next apply puts the configured network back, in place.
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("network").AtMapKey("deny_out"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("0.0.0.0/0")})),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("network").AtMapKey("rules").AtMapKey("localhost").
					AtMapKey("headers").AtMapKey("X-Team"), knownvalue.StringExact("data")),
			},
		},
	}))
}
