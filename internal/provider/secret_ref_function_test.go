package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// The function through a real CLI: the marker, and the names it refuses.
func TestAccSecretRefFunction(t *testing.T) {
	resource.ParallelTest(t, testAccFunctionCase([]resource.TestStep{
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
			ExpectError: regexp.MustCompile(`cannot be a secret name`),
		},
		{
			Config:      `output "empty" { value = provider::e2b::secret_ref("") }`,
			ExpectError: regexp.MustCompile(`cannot be a secret name`),
		},
		{
			// No secret can have these names: the marker would reach the
			// upstream as it is, never replaced.
			Config:      `output "space" { value = provider::e2b::secret_ref("api key") }`,
			ExpectError: regexp.MustCompile(`(?s)"api key" cannot be a secret name.*letters, digits`),
		},
		{
			Config:      `output "dot" { value = provider::e2b::secret_ref("api.key") }`,
			ExpectError: regexp.MustCompile(`"api.key" cannot be a secret name`),
		},
	}))
}
