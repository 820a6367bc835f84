package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// paused = false with resume_memory = false cold-boots a sandbox paused with its memory: the
// process started before the pause is gone after the resume, the file written before it is there.
func TestAccSandbox_resumeMemoryFalseColdBoots(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	var envd *e2b.Envd
	const marker = "acc-cold-boot"
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: sandboxConfig(srv, `resume_memory = false`),
			Check: func(s *terraform.State) error {
				var err error
				if envd, err = testAccEnvd(s, client, sbAddr); err != nil {
					return err
				}
				startMarkedProcess(t, envd, marker)
				if !hasMarkedProcess(t, envd, marker) {
					t.Fatal("the process is not running before the pause")
				}
				return nil
			},
		},
		{Config: sandboxConfig(srv, "paused = true\nresume_memory = false")},
		{
			Config: sandboxConfig(srv, "paused = false\nresume_memory = false"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			Check: func(*terraform.State) error {
				checkColdBooted(t, envd, marker)
				return nil
			},
		},
	}))
}

// Where E2B refuses a resume from disk only, the apply fails naming resume_memory and what to
// do; without it the same resume restores the memory.
func TestAccSandbox_resumeMemoryFalseRefused(t *testing.T) {
	srv := newTestEmulatorWith(t, emulator.Options{DiskOnlyResumeOff: true})
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: sandboxConfig(srv, `paused = true`)},
		{
			Config:      sandboxConfig(srv, "paused = false\nresume_memory = false"),
			ExpectError: regexp.MustCompile(`(?s)resume_memory.*Remove\s+resume_memory\s+=\s+false`),
		},
		{Config: sandboxConfig(srv, "paused = false")},
	}))
}

// A resume_memory that is not a bool is refused at plan time, before any request.
func TestAccSandbox_resumeMemoryRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	testAccRefusedWithoutRequests(t, srv, []resource.TestStep{
		planErrorStep(sandboxConfig(srv, `resume_memory = "sometimes"`), `(?s)resume_memory.*bool`),
	})
}
