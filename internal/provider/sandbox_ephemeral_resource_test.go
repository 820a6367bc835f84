package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// ephemeralVersionChecks skips CLIs without ephemeral resources and write-only attributes.
var ephemeralVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}

// planFileCheck runs fn while the saved plan of a step is on disk.
type planFileCheck func() error

func (f planFileCheck) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// workFiles lists the files matching pattern in plugin-testing's working directories under base.
func workFiles(base, pattern string) []string {
	files, _ := filepath.Glob(filepath.Join(base, "work*", pattern))
	return files
}

// allCreatedSecrets returns the IDs and tokens of every sandbox created so far.
func allCreatedSecrets(rec *e2bRecorder) []string {
	var out []string
	for _, c := range rec.created() {
		out = append(out, c.secrets()...)
	}
	return out
}

// usedAndKilledSandbox returns the one sandbox the run used through envd, and fails unless it was
// used and then killed (checkUsedAndKilled).
func usedAndKilledSandbox(emu *emulator.Server, rec *e2bRecorder) (createdSandbox, error) {
	var used []createdSandbox
	for _, c := range rec.created() {
		if _, _, envd := rec.lifeOf(c.SandboxID); len(envd) > 0 {
			used = append(used, c)
		}
	}
	if len(used) != 1 {
		return createdSandbox{}, fmt.Errorf("want one sandbox used through envd, got %d", len(used))
	}
	return used[0], rec.checkUsedAndKilled(emu, used[0].SandboxID)
}

// checkAllKilled verifies that every sandbox the run created was killed and none is alive.
func checkAllKilled(emu *emulator.Server, rec *e2bRecorder) error {
	for _, c := range rec.created() {
		if rec.count("kill", c.SandboxID) != 1 {
			return fmt.Errorf("sandbox %s was killed %d times, want once", c.SandboxID, rec.count("kill", c.SandboxID))
		}
	}
	if alive := emu.SandboxIDs(); len(alive) > 0 {
		return fmt.Errorf("sandboxes still alive: %v", alive)
	}
	return nil
}

// An ephemeral sandbox is opened by the plan and again by the apply, used by a command during
// the apply, and killed at the end of each; neither the saved plan nor the state holds its ID or
// tokens.
func TestAccEphemeralSandbox_usedDuringApplyNotPersisted(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	work := t.TempDir()
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		WorkingDir:               work,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps: []resource.TestStep{{
			Config: testAccProviderBlockVia(emu, rec) + testAccTestdata(t),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				planFileCheck(func() error {
					if len(rec.created()) == 0 {
						return fmt.Errorf("the plan did not open the ephemeral sandbox")
					}
					if err := checkAllKilled(emu, rec); err != nil {
						return fmt.Errorf("after the plan: %w", err)
					}
					return checkNotPersisted(workFiles(work, "tfplan"), allCreatedSecrets(rec))
				}),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox_command.smoke", tfjsonpath.New("stdout"), knownvalue.StringExact("ok\n")),
				statecheck.ExpectKnownValue("e2b_sandbox_command.smoke", tfjsonpath.New("sandbox_id"), knownvalue.Null()),
			},
			Check: func(*terraform.State) error {
				if _, err := usedAndKilledSandbox(emu, rec); err != nil {
					return err
				}
				if err := checkAllKilled(emu, rec); err != nil {
					return err
				}
				return checkNotPersisted(workFiles(work, "terraform.tfstate*"), allCreatedSecrets(rec))
			},
		}},
	})
}

// A sandbox with a 3 s timeout stays alive through a 7 s command because the CLI renews it.
func TestAccEphemeralSandbox_renewedDuringLongApply(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	const life = 3 * time.Second
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps: []resource.TestStep{{
			Config: testAccProviderBlockVia(emu, rec) + fmt.Sprintf(`
ephemeral "e2b_sandbox" "run" {
  timeout = %q
}

resource "e2b_sandbox_command" "long" {
  sandbox_id_wo = ephemeral.e2b_sandbox.run.id
  command       = "sleep 7; echo survived"
}
`, life),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox_command.long", tfjsonpath.New("stdout"), knownvalue.StringExact("survived\n")),
			},
			Check: func(*terraform.State) error {
				used, err := usedAndKilledSandbox(emu, rec)
				if err != nil {
					return err
				}
				created, killed, _ := rec.lifeOf(used.SandboxID)
				if lived := killed.Sub(created); lived < 2*life {
					return fmt.Errorf("the sandbox lived %s, not past its %s timeout", lived, life)
				}
				if n := rec.count("timeout", used.SandboxID); n < 2 {
					return fmt.Errorf("the sandbox was renewed %d times during a 7 s command with a %s timeout", n, life)
				}
				return nil
			},
		}},
	})
}

// A job in an ephemeral sandbox leaves its output on a volume, where a later sandbox finds it;
// the volume outlives the sandbox that mounted it. Terraform opens the ephemeral sandbox during
// the plan too, so there its volume is made by an earlier apply, and mounting one that does not
// exist yet says so; OpenTofu waits for the apply when the volume is still to be created.
func TestAccEphemeralSandbox_mountsAVolume(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	provider := testAccProviderBlockVia(emu, rec)
	volume := provider + testAccTestdata(t, "volume.tf")
	job := testAccTestdata(t, "job.tf")
	bad := resource.TestStep{
		Config:      provider + testAccTestdata(t, "bad.tf"),
		ExpectError: regexp.MustCompile(`(?s)Invalid volume_mounts.*used by volumes "a" and "b"`),
	}
	jobRan := resource.TestStep{
		Config: volume + job,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("e2b_sandbox_command.read", tfjsonpath.New("stdout"), knownvalue.StringExact("result-42\n")),
		},
	}
	steps := []resource.TestStep{bad, jobRan}
	if !testAccCLIIsOpenTofu(t) {
		steps = []resource.TestStep{
			bad,
			{Config: volume + job, ExpectError: regexp.MustCompile(`volume 'job-output' not found`)},
			{Config: volume},
			jobRan,
		}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps:                    steps,
	})
}
