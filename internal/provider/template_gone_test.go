package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// A tag, then its template, deleted outside Terraform are dropped from state
// and planned again, on every CLI: Terraform before 1.12 stores no identity,
// and a read that drops a resource without one failed every plan, apply and
// destroy with "Missing Resource Identity After Read".
func TestAccTemplate_deletedOutsideIsPlannedAgain(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	ctx := context.Background()
	cfg := testAccProviderBlock(srv) + testAccTestdata(t, "main.tf")
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{Config: cfg},
		{
			PreConfig: func() {
				if err := client.RemoveTemplateTags(ctx, "acc-gone", []string{"prod"}); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tagAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionNoop),
			}},
		},
		{
			PreConfig: func() {
				if err := client.DeleteTemplate(ctx, "acc-gone"); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(tagAddr, plancheck.ResourceActionCreate),
			}},
		},
	}))
}
