package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// A command runs as its user, as on E2B: user is uid 1000 and cannot list a
// folder only root may read, what user writes is user's, and user's sudo
// really becomes root.
func TestAccSandboxCommand_runsAsItsUser(t *testing.T) {
	srv := testAccBackend(t)
	if srv != nil && os.Geteuid() != 0 {
		t.Skip("the emulator gives commands another user's IDs only when it runs as root on the host")
	}
	cfg := filesTestConfig(srv, `
resource "e2b_sandbox_command" "as_root" {
  sandbox_id = e2b_sandbox.test.id
  user       = "root"
  command    = "whoami; id -u; mkdir -m 0700 /srv/root-only; ls -ld /srv/root-only | cut -c1-10"
}

resource "e2b_sandbox_command" "as_user" {
  sandbox_id = e2b_sandbox.test.id
  user       = "user"
  command    = "whoami; id -u; ls /srv/root-only 2>&1 || echo denied; echo mine > ~/mine.txt; stat -c %u:%g ~/mine.txt; sudo id -u"
  depends_on = [e2b_sandbox_command.as_root]
}
`)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("e2b_sandbox_command.as_root", tfjsonpath.New("stdout"), knownvalue.StringExact("root\n0\ndrwx------\n")),
			statecheck.ExpectKnownValue("e2b_sandbox_command.as_user", tfjsonpath.New("stdout"),
				knownvalue.StringExact("user\n1000\nls: cannot open directory '/srv/root-only': Permission denied\ndenied\n1000:1000\n0\n")),
		},
	}}))
}
