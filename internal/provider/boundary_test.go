package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// wrongURLConfig is a sandbox and a file with the provider pointed at the
// given URLs.
func wrongURLConfig(srv *emulator.Server, apiURL, sandboxURL string) string {
	return testAccProviderBlockAt(srv.APIKey(), apiURL, sandboxURL, "") + `
resource "e2b_sandbox" "test" {
  timeout = "15m"
}

resource "e2b_sandbox_file" "kept" {
  sandbox_id = e2b_sandbox.test.id
  path       = "kept.txt"
  content    = "still here\n"
}
`
}

// TestAccSandbox_urlThatRoutesNowhereKeepsState: an api_url ending in /v1
// (or a sandbox_url that routes nowhere) answers 404 to everything. That is
// not E2B saying the sandbox is gone: refresh fails, naming the URL, and the
// sandbox and its file stay in state (and alive).
func TestAccSandbox_urlThatRoutesNowhereKeepsState(t *testing.T) {
	srv := newTestEmulator(t)
	good := wrongURLConfig(srv, srv.APIURL(), srv.SandboxURL())
	var sandboxID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{Config: good, Check: captureAttr(sbAddr, "id", &sandboxID)},
			{
				Config:      wrongURLConfig(srv, srv.APIURL()+"/v1", srv.SandboxURL()),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)404 Not Found from\s+http://\S+/v1/sandboxes/.*check\s+api_url`),
			},
			{
				Config:      wrongURLConfig(srv, srv.APIURL(), srv.SandboxURL()+"/nowhere"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)/nowhere/.*check\s+sandbox_url`),
			},
			{
				// Back on the right URLs nothing changed: both resources are still in state.
				Config: good,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: func(s *terraform.State) error {
					id, err := testAccAttr(s, sbAddr, "id")
					if err != nil || id != sandboxID {
						return fmt.Errorf("sandbox in state %q (%v), want %q", id, err, sandboxID)
					}
					if _, err := testAccClient(t, srv).GetSandbox(context.Background(), id); err != nil {
						return fmt.Errorf("the sandbox must still run: %v", err)
					}
					_, err = testAccAttr(s, "e2b_sandbox_file.kept", "sha256")
					return err
				},
			},
		},
	})
}

// twoSnapshotsConfig: two snapshots of one sandbox under the same name; the
// second is replaced before it is destroyed when it moves to another sandbox.
func twoSnapshotsConfig(srv *emulator.Server, secondFrom string, withFirst bool) string {
	cfg := testAccProviderBlock(srv) + `
resource "e2b_sandbox" "one" {
  timeout = "15m"
}

resource "e2b_sandbox" "two" {
  timeout = "15m"
}

resource "e2b_snapshot" "second" {
  sandbox_id = e2b_sandbox.` + secondFrom + `.id
  name       = "shared-name"
  lifecycle {
    create_before_destroy = true
  }
}
`
	if withFirst {
		cfg += `
resource "e2b_snapshot" "first" {
  sandbox_id = e2b_sandbox.one.id
  name       = "shared-name"
}
`
	}
	return cfg
}

// TestAccSnapshot_sameNameKeepsOwnIdentity: two e2b_snapshot resources with
// one name are two snapshots; replacing one (create_before_destroy) or
// destroying it never deletes the other.
func TestAccSnapshot_sameNameKeepsOwnIdentity(t *testing.T) {
	srv := newTestEmulator(t)
	var first, second, secondReplaced string
	exists := func(id *string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			snap, err := testAccClient(t, srv).FindSnapshot(context.Background(), *id)
			if err != nil {
				return err
			}
			if (snap != nil) != want {
				return fmt.Errorf("snapshot %s exists=%v, want %v", *id, snap != nil, want)
			}
			return nil
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkSnapshotsGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config: twoSnapshotsConfig(srv, "one", true),
				Check: resource.ComposeTestCheckFunc(
					captureAttr("e2b_snapshot.first", "snapshot_id", &first),
					captureAttr("e2b_snapshot.second", "snapshot_id", &second),
					func(*terraform.State) error {
						if first == second {
							return fmt.Errorf("two snapshots share the ID %s", first)
						}
						return nil
					},
				),
			},
			{
				// The second moves to another sandbox: created anew before the old one goes.
				Config: twoSnapshotsConfig(srv, "two", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_snapshot.second", plancheck.ResourceActionCreateBeforeDestroy),
					plancheck.ExpectResourceAction("e2b_snapshot.first", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(
					captureAttr("e2b_snapshot.second", "snapshot_id", &secondReplaced),
					exists(&first, true), exists(&second, false), exists(&secondReplaced, true),
				),
			},
			{
				// Destroying the first leaves the second whole.
				Config: twoSnapshotsConfig(srv, "two", false),
				Check:  resource.ComposeTestCheckFunc(exists(&first, false), exists(&secondReplaced, true)),
			},
		},
	})
}

// TestAccSandboxCommand_lostStdinIsReported: stdin that cannot reach the
// command (every SendInput fails) is closed early, so the command ends at
// once instead of waiting until its timeout, and the apply fails saying so.
func TestAccSandboxCommand_lostStdinIsReported(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: testAccProviderBlock(srv) + `resource "e2b_sandbox" "test" {}`},
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"envd /process.Process/SendInput"}})
				},
				Config: testAccProviderBlock(srv) + `
resource "e2b_sandbox" "test" {}

resource "e2b_sandbox_command" "reads" {
  sandbox_id = e2b_sandbox.test.id
  command    = "wc -c"
  stdin      = "input that never arrives\n"
  timeout    = "20s"
}
`,
				ExpectError: regexp.MustCompile(`(?s)sending stdin to process.*503`),
			},
			{
				PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
				Config:    testAccProviderBlock(srv) + `resource "e2b_sandbox" "test" {}`,
			},
		},
	})
}
