package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// Actions need Terraform 1.14+: these tests skip under OpenTofu (which has no
// action blocks) and run when TF_ACC_TERRAFORM_PATH names a Terraform 1.14+
// binary. The protocol-level tests in exec_action_protocol_test.go cover the
// action on every CLI.

func execActionConfig(srv *emulator.Server, command string) string {
	return execAfterCreateConfig(srv, `
    command    = `+command+`
    timeout    = "1m"`)
}

// execAfterCreateConfig is a sandbox whose creation runs action e2b_exec.setup on it; config is
// the action's config beyond sandbox_id.
func execAfterCreateConfig(srv *emulator.Server, config string) string {
	return testAccProviderBlock(srv) + `
resource "e2b_sandbox" "test" {
  timeout = "15m"

  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.e2b_exec.setup]
    }
  }
}

action "e2b_exec" "setup" {
  config {
    sandbox_id = caller.id` + config + `
  }
}
`
}

func TestAccExecAction_afterCreate(t *testing.T) {
	srv := testAccBackend(t)
	var sandboxID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{{
			Config: execActionConfig(srv, `"mkdir -p ~/out && echo ran > ~/out/action.txt"`),
			Check: resource.ComposeTestCheckFunc(
				captureAttr(sbAddr, "id", &sandboxID),
				checkRemoteFile(t, srv, &sandboxID, "/home/user/out/action.txt", "ran\n"),
			),
		}},
	})
}

func TestAccExecAction_failureFailsApply(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{{
			Config:      execActionConfig(srv, `"echo 'no such table' >&2; exit 5"`),
			ExpectError: regexp.MustCompile(`(?s)exit code 5.*no such table`),
		}},
	})
}

// env is write-only in the action (actions cannot mark values sensitive); Terraform 1.16 refused
// it ("WriteOnly Attribute Not Allowed") until the provider server let write-only action values
// through. sandbox_id comes from caller, as the documented example has it.
func TestAccExecAction_env(t *testing.T) {
	srv := testAccBackend(t)
	var sandboxID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{{
			Config: execAfterCreateConfig(srv, `
    command    = "mkdir -p ~/out && printf '%s %s' \"$GREETING\" \"$(cat)\" > ~/out/env.txt"
    env = {
      GREETING = "hello"
    }
    stdin = "from stdin"`),
			Check: resource.ComposeTestCheckFunc(
				captureAttr(sbAddr, "id", &sandboxID),
				checkRemoteFile(t, srv, &sandboxID, "/home/user/out/env.txt", "hello from stdin"),
			),
		}},
	})
}

// The documented pairing: an ephemeral sandbox named by sandbox_id_wo, with ephemeral values in
// env and stdin too, run by a terraform_data's action_trigger. The sandbox is gone after the run,
// so the command itself checks what it received and fails the apply when anything is missing.
func TestAccExecAction_ephemeralSandbox(t *testing.T) {
	srv := newTestEmulator(t) // counts the processes started
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{{
			Config: testAccProviderBlock(srv) + testAccTestdata(t, "main.tf"),
			Check: func(*terraform.State) error {
				c := srv.Counters()
				if n := c.Requests["envd /process.Process/Start"]; n != 1 {
					return fmt.Errorf("the action started %d processes, want 1", n)
				}
				if c.SandboxesCreated == 0 || c.SandboxesAlive != 0 {
					return fmt.Errorf("ephemeral sandbox: %d created, %d still alive; want it created and killed", c.SandboxesCreated, c.SandboxesAlive)
				}
				return nil
			},
		}},
	})
}
