package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// version1_16_0 is the first Terraform with before_destroy/after_destroy action triggers and
// on_failure; plugin-testing v1.16 has no constant for it. The tests that need it also name
// tfversion.Version1_14_0 inside the Test function, which is how the terraform14 stage finds them.
var version1_16_0 = version.Must(version.NewVersion("1.16.0"))

// snapshotActionConfig is a sandbox whose destroy first runs e2b_sandbox_snapshot.
func snapshotActionConfig(srv *emulator.Server, address, template, name, onFailure string) string {
	return snapshotActionConfigEnv(srv, address, template, name, onFailure, "")
}

// snapshotActionConfigEnv sets an env var too: changing it replaces the sandbox, which destroys
// it inside an apply, where Terraform honours on_failure (a `terraform destroy` never stops).
func snapshotActionConfigEnv(srv *emulator.Server, address, template, name, onFailure, env string) string {
	tmpl := ""
	if template != "" {
		tmpl = fmt.Sprintf("  template = %q\n", template)
	}
	if env != "" {
		tmpl += fmt.Sprintf("  env_vars = { GENERATION = %q }\n", env)
	}
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_sandbox" %[1]q {
%[2]s  timeout  = "15m"

  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.e2b_sandbox_snapshot.keep]
      on_failure = %[4]s
    }
  }
}

action "e2b_sandbox_snapshot" "keep" {
  config {
    sandbox_id = caller.id
    name       = %[3]q
    timeout    = "2m"
  }
}
`, address, tmpl, name, onFailure)
}

// A file written into a sandbox survives terraform destroy through a before_destroy snapshot, a
// sandbox created from the name has it, and destroying that one adds a second build to the name.
func TestAccSandboxSnapshotAction_beforeDestroy(t *testing.T) {
	srv := newTestEmulator(t)
	const name = "dev-workspace"
	first := snapshotActionConfig(srv, "dev", "", name, "halt")
	second := snapshotActionConfig(srv, "back", name, name, "halt")
	snapshotTwiceUnderName(t, srv, name, first, second, []tfversion.TerraformVersionCheck{
		tfversion.SkipBelow(tfversion.Version1_14_0), tfversion.SkipBelow(version1_16_0),
	})
}

// on_failure = halt: a failed snapshot stops a replacement before the old sandbox is killed; the
// sandbox and its state stay. (Terraform 1.16 never lets an action stop `terraform destroy`: there
// every on_failure acts as continue, which TestCLISandboxSnapshotAction_reportsSnapshot shows.)
func TestAccSandboxSnapshotAction_haltKeepsSandbox(t *testing.T) {
	srv := newTestEmulator(t)
	config := snapshotActionConfigEnv(srv, "dev", "", "kept", "halt", "1")
	var devID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_14_0), tfversion.SkipBelow(version1_16_0),
		},
		Steps: []resource.TestStep{
			devWorkStep(t, srv, config, &devID),
			{
				PreConfig:   func() { failSnapshots(srv) },
				Config:      snapshotActionConfigEnv(srv, "dev", "", "kept", "halt", "2"),
				ExpectError: regexp.MustCompile(`(?s)Could not snapshot sandbox`),
			},
			devKeptStep(t, srv, config, &devID),
		},
	})
}

// on_failure = continue: a failed snapshot does not stop the replacement; the old sandbox goes.
func TestAccSandboxSnapshotAction_continueReplaces(t *testing.T) {
	srv := newTestEmulator(t)
	var oldID, newID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_14_0), tfversion.SkipBelow(version1_16_0),
		},
		CheckDestroy: testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config: snapshotActionConfigEnv(srv, "dev", "", "lost", "continue", "1"),
				Check:  captureAttr("e2b_sandbox.dev", "id", &oldID),
			},
			{
				PreConfig: func() { failSnapshots(srv) },
				Config:    snapshotActionConfigEnv(srv, "dev", "", "lost", "continue", "2"),
				Check:     captureAttr("e2b_sandbox.dev", "id", &newID),
			},
		},
	})
	if oldID == newID {
		t.Fatalf("the sandbox was not replaced: %s", oldID)
	}
	if n := srv.Counters().Requests["POST /sandboxes/{id}/snapshots"]; n == 0 {
		t.Fatal("no snapshot was attempted")
	}
}

// A snapshot whose answer is lost before a destroy: the destroy goes on, one snapshot is taken.
func TestAccSandboxSnapshotAction_lostAnswer(t *testing.T) {
	srv := newTestEmulator(t)
	config := snapshotActionConfig(srv, "dev", "", "lost-answer", "halt")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_14_0), tfversion.SkipBelow(version1_16_0),
		},
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostGateway},
						Routes: []string{"POST /sandboxes/{id}/snapshots"}})
				},
				Config: config, Destroy: true,
			},
		},
	})
	srv.SetFaults(emulator.Faults{})
	if n := srv.Counters().Requests["POST /sandboxes/{id}/snapshots"]; n != 1 {
		t.Fatalf("snapshot sent %d times, want once", n)
	}
	if own, _ := snapshotBuilds(t, srv, "lost-answer"); len(own) != 1 {
		t.Fatalf("snapshots %v, want one", own)
	}
	if alive := srv.SandboxIDs(); len(alive) != 0 {
		t.Fatalf("alive %v after the destroy, want none", alive)
	}
}

// failSnapshots makes E2B refuse every snapshot.
func failSnapshots(srv *emulator.Server) {
	srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{400}, Routes: []string{"POST /sandboxes/{id}/snapshots"}})
}
