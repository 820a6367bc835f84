package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// `terraform query` with the e2b_sandbox list resource (Terraform 1.14+; skips elsewhere): the
// metadata filter finds the two sandboxes labelled for the team and not the third.
func TestAccSandboxListResource_query(t *testing.T) {
	srv := testAccBackend(t)
	provider := testAccProviderBlock(srv)
	team := "data-" + randomHex(4) // unique, so a live run's other sandboxes do not count
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Config: provider + `
resource "e2b_sandbox" "data" {
  count    = 2
  metadata = { team = "` + team + `" }
}

resource "e2b_sandbox" "web" {
  metadata = { team = "web" }
}
`,
			},
			{
				// The query file sits beside the first step's configuration, provider block included.
				Query: true,
				Config: `
list "e2b_sandbox" "data_team" {
  provider = e2b

  config {
    metadata = { team = "` + team + `" }
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("e2b_sandbox.data_team", 2),
				},
			},
		},
	})
}
