package provider

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A chain of forks whose answers a gateway loses (E2B forks, a 504 comes back): the apply
// succeeds with each fork found, state records exactly the three sandboxes E2B runs (no orphan),
// the next plan is empty (no second fork), and destroy leaves none.
func TestAccSandbox_forkLostAnswerSettled(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + testAccTestdata(t, "main.tf")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostGateway},
					Routes: []string{"POST /v2/sandboxes/{id}/fork"}})
			},
			Config: cfg,
			Check: func(s *terraform.State) error {
				srv.SetFaults(emulator.Faults{})
				var inState []string
				for _, addr := range []string{"e2b_sandbox.source", "e2b_sandbox.fork", "e2b_sandbox.fork_of_fork"} {
					id, err := testAccAttr(s, addr, "id")
					if err != nil {
						return err
					}
					inState = append(inState, id)
				}
				slices.Sort(inState)
				running := srv.SandboxIDs()
				slices.Sort(running)
				if !slices.Equal(inState, running) {
					return fmt.Errorf("E2B runs %v, state records %v", running, inState)
				}
				if n := srv.Counters().FaultsInjected; n < 2 {
					return fmt.Errorf("%d fork answers lost, want 2: the test proves nothing", n)
				}
				return nil
			},
		}},
	})
}
