package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// `terraform query` with the list resources of team objects (Terraform 1.14+; skips elsewhere),
// checked with terraform-plugin-testing's querycheck: each finds the object made out of band
// with the identity its resource type imports it by, and a filter narrows what it finds.
func TestAccTeamListResources_query(t *testing.T) {
	srv := newTestEmulator(t)
	a := createTeamObjectsOutOfBand(t, srv)
	id := func(attr, value string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{attr: knownvalue.StringExact(value)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{Config: testAccProviderBlock(srv)},
			{
				// The query file sits beside the first step's configuration, provider block included.
				Query: true,
				Config: `
list "e2b_template" "all" {
  provider = e2b
}

list "e2b_template_tag" "app" {
  provider = e2b
  config {
    template = "adopt-app"
  }
}

list "e2b_snapshot" "named" {
  provider = e2b
  config {
    name = "adopt-snap"
  }
}

list "e2b_volume" "all" {
  provider = e2b
}

list "e2b_secret" "all" {
  provider = e2b
}

list "e2b_webhook" "all" {
  provider = e2b
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectIdentity("e2b_template.all", id("template_id", a.templateID)),
					querycheck.ExpectLength("e2b_template_tag.app", 1), // prod; the list leaves out E2B's own tag default
					querycheck.ExpectIdentity("e2b_template_tag.app", map[string]knownvalue.Check{
						"template": knownvalue.StringExact("adopt-app"), "tag": knownvalue.StringExact("prod"),
					}),
					querycheck.ExpectLength("e2b_snapshot.named", 1),
					querycheck.ExpectIdentity("e2b_snapshot.named", id("snapshot_id", a.snapshotID)),
					querycheck.ExpectLength("e2b_volume.all", 1),
					querycheck.ExpectIdentity("e2b_volume.all", id("volume_id", a.volumeID)),
					querycheck.ExpectLength("e2b_secret.all", 1),
					querycheck.ExpectIdentity("e2b_secret.all", id("secret_id", a.secretID)),
					querycheck.ExpectLength("e2b_webhook.all", 1),
					querycheck.ExpectIdentity("e2b_webhook.all", id("webhook_id", a.webhookID)),
				},
			},
		},
	})
}
