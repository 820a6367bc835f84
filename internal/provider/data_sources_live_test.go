package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The data sources read a sandbox made in the same configuration. Unlike the seeded tests, this
// one also runs against real E2B (E2B_LIVE=1). e2b_template is left out: the public base
// template belongs to E2B, not the team, so reading it by ID may be refused.
func TestAccDataSource_readSandboxFromConfig(t *testing.T) {
	srv := testAccBackend(t)
	run := acctest.RandString(12)
	cfg := testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_sandbox" "test" {
  metadata = { run = %q }
}
data "e2b_sandboxes" "mine" {
  metadata = { run = e2b_sandbox.test.metadata_all["run"] }
}
data "e2b_sandbox" "mine" { id = e2b_sandbox.test.id }
data "e2b_sandbox_metrics" "mine" { sandbox_id = e2b_sandbox.test.id }
data "e2b_sandbox_logs" "mine" { sandbox_id = e2b_sandbox.test.id }
data "e2b_snapshots" "mine" { sandbox_id = e2b_sandbox.test.id }
data "e2b_templates" "all" {}
`, run)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				sameID.AddStateValue("data.e2b_sandboxes.mine", tfjsonpath.New("ids").AtSliceIndex(0)),
				sameID.AddStateValue("data.e2b_sandbox.mine", tfjsonpath.New("id")),
				statecheck.ExpectKnownValue("data.e2b_sandboxes.mine", tfjsonpath.New("ids"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue("data.e2b_sandbox.mine", tfjsonpath.New("state"), knownvalue.StringExact("running")),
				statecheck.ExpectKnownValue("data.e2b_sandbox.mine", tfjsonpath.New("metadata"), knownvalue.MapExact(map[string]knownvalue.Check{
					"run": knownvalue.StringExact(run),
				})),
				statecheck.ExpectKnownValue("data.e2b_sandbox_metrics.mine", tfjsonpath.New("metrics"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.e2b_sandbox_logs.mine", tfjsonpath.New("logs"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.e2b_snapshots.mine", tfjsonpath.New("snapshots"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.e2b_templates.all", tfjsonpath.New("templates"), knownvalue.NotNull()),
			},
		}},
	})
}
