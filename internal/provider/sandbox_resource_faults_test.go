package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A create whose connection drops after E2B made the sandbox is resolved through the
// idempotency token: exactly one sandbox exists, and it is the one in state.
func TestAccSandbox_droppedCreateIsNotDuplicated(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetFaults(emulator.Faults{DropAfterCreate: 1, Routes: []string{"POST /sandboxes"}})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			Config: sandboxConfig(srv, ""),
			Check: func(s *terraform.State) error {
				c := srv.Counters()
				if c.SandboxesCreated != 1 || c.SandboxesAlive != 1 {
					return fmt.Errorf("created %d, alive %d; want exactly one", c.SandboxesCreated, c.SandboxesAlive)
				}
				if c.Requests["GET /v2/sandboxes"] == 0 {
					return fmt.Errorf("the dropped create was never looked up by its token (requests: %v)", c.Requests)
				}
				id, err := testAccAttr(s, sbAddr, "id")
				if err != nil {
					return err
				}
				if ids := srv.SandboxIDs(); len(ids) != 1 || ids[0] != id {
					return fmt.Errorf("state has %s, E2B has %v", id, ids)
				}
				return nil
			},
		}},
	})
}

// When a follow-up call after create fails (here: the pause of paused = true), the sandbox stays
// in state (tainted) rather than being orphaned; the next apply replaces it and nothing leaks.
func TestAccSandbox_failedFollowUpKeepsSandboxInState(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlockWith(srv, "  max_retries = 0") + `resource "e2b_sandbox" "test" {
  paused = true
}
`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500}, Routes: []string{"POST /sandboxes/{id}/pause"}})
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`Sandbox created but could not be paused`),
			},
			{
				PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(*terraform.State) error {
					if c := srv.Counters(); c.SandboxesCreated != 2 || c.SandboxesAlive != 1 {
						return fmt.Errorf("created %d, alive %d; want 2 created and only the replacement alive", c.SandboxesCreated, c.SandboxesAlive)
					}
					return nil
				},
			},
		},
	})
}
