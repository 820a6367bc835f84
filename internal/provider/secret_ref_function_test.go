package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// The function through a real CLI: the marker, and the names it refuses.
func TestAccSecretRefFunction(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: `
output "marker" {
  value = "Bearer ${provider::e2b::secret_ref("openai-key")}"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("marker", knownvalue.StringExact("Bearer ${e2b.secrets.openai-key}")),
				},
			},
			{
				Config:      `output "bad" { value = provider::e2b::secret_ref("a}b") }`,
				ExpectError: regexp.MustCompile(`without '\{', '\}' or control characters`),
			},
			{
				Config:      `output "empty" { value = provider::e2b::secret_ref("") }`,
				ExpectError: regexp.MustCompile(`must be non-empty`),
			},
		},
	})
}
