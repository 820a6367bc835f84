package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// The work a sandbox holds when it is destroyed: a file written into it by hand.
const (
	workPath    = "/home/user/work/notes.txt"
	workContent = "written by hand, nowhere else\n"
)

func snapshotOnDestroyConfig(srv *emulator.Server, address, template, name string) string {
	tmpl := ""
	if template != "" {
		tmpl = fmt.Sprintf("  template = %q\n", template)
	}
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_sandbox" %q {
%s  timeout  = "15m"

  snapshot_on_destroy = {
    name = %q
  }
}
`, strings.TrimPrefix(address, "e2b_sandbox."), tmpl, name)
}

// writeWork writes the hand-made work into a sandbox, as a user working in it would.
func writeWork(t *testing.T, srv *emulator.Server, sandboxID *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := sandboxEnvd(t, srv, *sandboxID).WriteFile(context.Background(), workPath, strings.NewReader(workContent), e2b.WriteOptions{})
		return err
	}
}

// devWorkStep applies config and writes the work into e2b_sandbox.dev, whose ID it records.
func devWorkStep(t *testing.T, srv *emulator.Server, config string, devID *string) resource.TestStep {
	return resource.TestStep{
		Config: config,
		Check:  resource.ComposeTestCheckFunc(captureAttr("e2b_sandbox.dev", "id", devID), writeWork(t, srv, devID)),
	}
}

// devKeptStep follows a snapshot that failed: once the faults are cleared, e2b_sandbox.dev alone
// is alive, still in state (config plans nothing) and holds its work.
func devKeptStep(t *testing.T, srv *emulator.Server, config string, devID *string) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() {
			srv.SetFaults(emulator.Faults{})
			if alive := srv.SandboxIDs(); len(alive) != 1 || alive[0] != *devID {
				t.Fatalf("after the failed snapshot: alive %v, want %s kept", alive, *devID)
			}
		},
		Config:           config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		Check:            checkRemoteFile(t, srv, devID, workPath, workContent),
	}
}

// snapshotBuilds lists the snapshots of a name: the tags snapshots got for themselves (E2B's
// listing shows the name's template once, so its tags tell its snapshots), and the snapshot
// the name's default tag starts.
func snapshotBuilds(t *testing.T, srv *emulator.Server, name string) (own []string, latest string) {
	t.Helper()
	tags, err := testAccClient(t, srv).ListTemplateTags(context.Background(), name)
	if e2b.IsNotFound(err) {
		return nil, ""
	}
	if err != nil {
		t.Fatalf("tags of %q: %v", name, err)
	}
	byBuild := map[string]string{}
	for _, tg := range tags {
		if strings.HasPrefix(tg.Tag, "snap-") {
			byBuild[tg.BuildID] = tg.Tag
			own = append(own, tg.Tag)
		}
	}
	for _, tg := range tags {
		if tg.Tag == "default" {
			latest = byBuild[tg.BuildID]
		}
	}
	return own, latest
}

// A file written into a sandbox survives its destroy as a snapshot of the name, a sandbox
// created from the name has it, and destroying that one adds a second snapshot to the name,
// which the name then starts. Runs on every CLI: this is the OpenTofu and Terraform < 1.16 path.
func TestAccSandbox_snapshotOnDestroy(t *testing.T) {
	srv := newTestEmulator(t)
	const name = "dev-workspace"
	first := snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", name)
	second := snapshotOnDestroyConfig(srv, "e2b_sandbox.back", name, name)
	snapshotTwiceUnderName(t, srv, name, first, second, nil)
}

// A snapshot that fails keeps the sandbox alive and in state, and the destroy fails saying why;
// once snapshots work again, the destroy takes it and kills the sandbox.
func TestAccSandbox_snapshotOnDestroyFailureKeepsSandbox(t *testing.T) {
	srv := newTestEmulator(t)
	const name = "kept"
	config := snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", name)
	var devID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			devWorkStep(t, srv, config, &devID),
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{400}, Routes: []string{"POST /sandboxes/{id}/snapshots"}})
				},
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)Snapshot before destroy failed.*was not killed`),
			},
			devKeptStep(t, srv, config, &devID),
		},
	})
	if own, _ := snapshotBuilds(t, srv, name); len(own) != 1 {
		t.Fatalf("snapshots of %q after the final destroy: %v, want one", name, own)
	}
}

// Changing or adding snapshot_on_destroy changes nothing in E2B: an in-place update.
func TestAccSandbox_snapshotOnDestroyInPlace(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", "Bad:Name"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`snapshot_on_destroy.name`),
			},
			{Config: testAccProviderBlock(srv) + `resource "e2b_sandbox" "dev" {}`},
			{
				Config: snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", "renamed"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_sandbox.dev", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})
	if own, _ := snapshotBuilds(t, srv, "renamed"); len(own) != 1 {
		t.Fatalf("the final destroy took %d snapshots named renamed, want 1", len(own))
	}
}

// A paused sandbox is resumed for its snapshot (E2B snapshots only running sandboxes), and the
// snapshot holds its files; removing the resource from the configuration takes it too.
func TestAccSandbox_snapshotOnDestroyPausedAndRemoved(t *testing.T) {
	srv := newTestEmulator(t)
	const name = "paused-work"
	var devID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			devWorkStep(t, srv, snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", name), &devID),
			{Config: strings.Replace(snapshotOnDestroyConfig(srv, "e2b_sandbox.dev", "", name), `timeout  = "15m"`, "timeout  = \"15m\"\n  paused   = true", 1)},
			{Config: testAccProviderBlock(srv)}, // the resource leaves the configuration
			{
				PreConfig: func() {
					if alive := srv.SandboxIDs(); len(alive) != 0 {
						t.Fatalf("alive after removal: %v", alive)
					}
					if own, _ := snapshotBuilds(t, srv, name); len(own) != 1 {
						t.Fatalf("snapshots of the paused, removed sandbox: %v, want one", own)
					}
				},
				Config: snapshotOnDestroyConfig(srv, "e2b_sandbox.back", name, "other"),
				Check: func(s *terraform.State) error {
					id, err := testAccAttr(s, "e2b_sandbox.back", "id")
					if err != nil {
						return err
					}
					return checkRemoteFile(t, srv, &id, workPath, workContent)(s)
				},
			},
		},
	})
}

// snapshotTwiceUnderName applies first (e2b_sandbox.dev, into which it writes work) and destroys it,
// then applies second (e2b_sandbox.back, from the snapshot name), checks the work is there and
// destroys it too: the name then holds two snapshots and starts the newer one.
func snapshotTwiceUnderName(t *testing.T, srv *emulator.Server, name, first, second string, checks []tfversion.TerraformVersionCheck) {
	t.Helper()
	var devID, backID string
	var afterFirst []string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   checks,
		Steps: []resource.TestStep{
			devWorkStep(t, srv, first, &devID),
			{Config: first, Destroy: true},
			{
				PreConfig: func() {
					if alive := srv.SandboxIDs(); len(alive) != 0 {
						t.Fatalf("sandboxes alive after destroy: %v", alive)
					}
					own, latest := snapshotBuilds(t, srv, name)
					if len(own) != 1 || latest != own[0] {
						t.Fatalf("after the first destroy: snapshots %v, name starts %q; want one, started by the name", own, latest)
					}
					afterFirst = own
				},
				Config: second,
				Check: resource.ComposeTestCheckFunc(
					captureAttr("e2b_sandbox.back", "id", &backID),
					checkRemoteFile(t, srv, &backID, workPath, workContent),
				),
			},
			{Config: second, Destroy: true},
		},
	})
	own, latest := snapshotBuilds(t, srv, name)
	if len(own) != 2 || latest == "" || latest == afterFirst[0] {
		t.Fatalf("after the second destroy: snapshots %v, name starts %q; want two, the name starting the new one", own, latest)
	}
}
