package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// Actions need Terraform 1.14+: these tests skip under OpenTofu (which has no
// action blocks) and run when TF_ACC_TERRAFORM_PATH names a Terraform 1.14+
// binary. The protocol-level tests in exec_action_test.go cover the action on
// every CLI.

func execActionConfig(srv *emulator.Server, command string) string {
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
    sandbox_id = e2b_sandbox.test.id
    command    = ` + command + `
    timeout    = "1m"
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
