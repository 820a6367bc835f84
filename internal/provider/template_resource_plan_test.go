package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// e2b_template's from_template is looked up at plan too; the template that exists plans.
func TestAccTemplate_missingFromTemplateAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(from string) string {
		return testAccProviderBlock(srv) + `
resource "e2b_template" "app" {
  name          = "acc-from-missing"
  from_template = "` + from + `"
}
`
	}
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg("bsae"), PlanOnly: true,
			ExpectError: words(`Template not found.*from_template = "bsae": E2B has no template .*e2b_templates`)},
		{Config: cfg("base"), PlanOnly: true, ExpectNonEmptyPlan: true},
	}))
	if n := srv.Counters().Requests["POST /v3/templates"]; n != 0 {
		t.Fatalf("%d template builds requested at plan", n)
	}
}
