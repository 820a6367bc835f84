package provider

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Egress rules change in place; ingress settings replace the sandbox.
func TestAccSandbox_network(t *testing.T) {
	srv := testAccBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	egress := func(allow, deny []string) resource.TestCheckFunc {
		return testAccCheckSandboxDetail(t, srv, func(d *e2b.SandboxDetail) error {
			if d.Network == nil {
				return fmt.Errorf("E2B reports no network config")
			}
			got := [2][]string{slices.Sorted(slices.Values(d.Network.AllowOut)), slices.Sorted(slices.Values(d.Network.DenyOut))}
			if !slices.Equal(got[0], allow) || !slices.Equal(got[1], deny) {
				return fmt.Errorf("E2B egress allow=%v deny=%v, want allow=%v deny=%v", got[0], got[1], allow, deny)
			}
			return nil
		})
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: sandboxConfig(srv, `network = {
    allow_out = ["1.1.1.1"]
    deny_out  = ["10.0.0.0/8"]
  }`),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				newID.AddStateValue(sbAddr, tfjsonpath.New("id")),
			},
			Check: egress([]string{"1.1.1.1"}, []string{"10.0.0.0/8"}),
		},
		{
			Config: sandboxConfig(srv, `network = {
    allow_out = ["8.8.8.8", "example.com"]
    deny_out  = ["0.0.0.0/0"]
  }`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             egress([]string{"8.8.8.8", "example.com"}, []string{"0.0.0.0/0"}),
		},
		{
			Config: sandboxConfig(srv, `network = {
    allow_out            = ["8.8.8.8", "example.com"]
    deny_out             = ["0.0.0.0/0"]
    allow_public_traffic = false
  }`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				newID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("traffic_access_token"), knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
			},
		},
		{
			// The network rules come back on import.
			ResourceName:            sbAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeout", "timeouts", "traffic_access_token", "env_vars"},
		},
	}))
}

// Changing the egress rules of a paused sandbox is refused at plan time, with what to do.
func TestAccSandbox_networkWhilePausedRefused(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: sandboxConfig(srv, `paused = true`)},
		{
			Config:      sandboxConfig(srv, "paused = true\nallow_internet_access = false"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Cannot change the network of a paused sandbox.*paused = false`),
		},
		{
			// Resuming in the same change applies the rules after the resume.
			Config: sandboxConfig(srv, "paused = false\nallow_internet_access = false"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("allow_internet_access"), knownvalue.Bool(false)),
			},
		},
	}))
}
