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

// network.https_ports reaches E2B on create and is read back on every refresh: ports changed
// outside Terraform (E2B's API cannot change them; the emulator's admin hook stands in for it)
// show in the plan, which replaces the sandbox to put the configured ones back.
func TestAccSandbox_httpsPorts(t *testing.T) {
	srv := newTestEmulator(t)
	var id string
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	cfg := sandboxConfig(srv, `network = {
    https_ports = [8443, 3000]
  }`)
	ports := func(want ...int) resource.TestCheckFunc {
		return testAccCheckSandboxDetail(t, srv, func(d *e2b.SandboxDetail) error {
			if d.Network == nil {
				return fmt.Errorf("E2B reports no network config")
			}
			if got := slices.Sorted(slices.Values(d.Network.HTTPSPorts)); !slices.Equal(got, want) {
				return fmt.Errorf("E2B has httpsPorts %v, want %v", got, want)
			}
			return nil
		})
	}
	inState := statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("network").AtMapKey("https_ports"),
		knownvalue.SetExact([]knownvalue.Check{knownvalue.Int64Exact(3000), knownvalue.Int64Exact(8443)}))
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:            cfg,
			Check:             resource.ComposeTestCheckFunc(captureAttr(sbAddr, "id", &id), ports(3000, 8443)),
			ConfigStateChecks: []statecheck.StateCheck{inState, newID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
		},
		{
			// A refresh with nothing changed plans nothing.
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		{
			PreConfig: func() {
				if err := srv.SetSandboxHTTPSPorts(id, []uint32{9443}); err != nil {
					t.Fatalf("change the ports behind Terraform's back: %v", err)
				}
			},
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		{
			// apply -refresh-only records what E2B holds.
			RefreshState:       true,
			Check:              resource.TestCheckTypeSetElemAttr(sbAddr, "network.https_ports.*", "9443"),
			ExpectNonEmptyPlan: true,
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{inState, newID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             ports(3000, 8443),
		},
		{
			// Removing them replaces the sandbox too: E2B sets them at create only.
			Config: sandboxConfig(srv, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("network"), knownvalue.Null())},
		},
	}))
}

// Bad https_ports are refused at plan time, naming the attribute, before any request.
func TestAccSandbox_httpsPortsRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	bad := func(ports, want string) resource.TestStep {
		return planErrorStep(sandboxConfig(srv, "network = {\n    https_ports = "+ports+"\n  }"), want)
	}
	testAccRefusedWithoutRequests(t, srv, []resource.TestStep{
		bad("[0]", `(?s)network.https_ports.*between 1 and\s+65535`),
		bad("[65536]", `(?s)network.https_ports.*between 1 and\s+65535`),
		bad("[443, 49983]", `(?s)envd's port in network.https_ports.*Remove\s+49983\s+from\s+network.https_ports`),
		bad("range(1, 130)", `(?s)network.https_ports.*at\s+most\s+128`),
	})
}

// The ephemeral e2b_sandbox takes the same https_ports, refused the same way.
func TestAccEphemeralSandbox_httpsPortsRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testAccProviderBlock(srv) + `
ephemeral "e2b_sandbox" "run" {
  network = { https_ports = [49983] }
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)envd's port in network.https_ports.*Remove\s+49983`),
		}},
	})
	testAccCheckNoRequests(t, srv, "an ephemeral sandbox with envd's port in https_ports")
}
