package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// pause_memory = false pauses without a memory snapshot: the resume reboots the sandbox, so a
// process started before the pause is gone and a file written before it stays. The sandbox
// keeps its ID throughout.
func TestAccSandbox_pauseWithoutMemoryReboots(t *testing.T) {
	srv := testAccBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	var pid uint32
	prepare := startAccSleep(t, srv, "echo kept > /home/user/kept.txt; sleep 3600", &pid)
	rebooted := func(s *terraform.State) error {
		envd, procs, err := processesAfterResume(t, srv, s)
		if err != nil {
			return err
		}
		for _, p := range procs {
			if p.PID == pid || p.Tag == "acc-sleep" {
				return fmt.Errorf("process %d survived a pause without memory: %+v", pid, p)
			}
		}
		if _, err := envd.Stat(context.Background(), "/home/user/kept.txt"); err != nil {
			return fmt.Errorf("the file written before the pause is gone: %w", err)
		}
		return nil
	}
	cfg := func(paused string) string {
		return sandboxConfig(srv, "timeout = \"10m\"\npause_memory = false\npaused = "+paused)
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:            cfg("false"),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             prepare,
		},
		{
			Config:            cfg("true"),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate)}},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
		},
		{
			Config:            cfg("false"),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             rebooted,
		},
	}))
}

// pause_memory = false with auto_resume is refused at plan time: E2B's auto-resume refuses such
// a sandbox.
func TestAccSandbox_pauseWithoutMemoryRefusesAutoResume(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      sandboxConfig(srv, "pause_memory = false\nauto_resume = true"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`pause_memory = false cannot be combined with auto_resume`),
		}},
	})
}
