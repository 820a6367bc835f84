package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const snapAddr = "e2b_snapshot.test"

// snapshotConfig is testdata/snapshot: a sandbox with a file and its snapshot, and a second
// sandbox started from the snapshot (when withClone); the snapshot's name is a variable.
func snapshotConfig(t *testing.T, srv *emulator.Server, withClone bool) string {
	files := []string{"snapshot.tf"}
	if withClone {
		files = append(files, "clone.tf")
	}
	return testAccProviderBlock(srv) + testAccTestdataFrom(t, "snapshot", files...)
}

// checkSnapshotsGone verifies destroy deleted the snapshots in state.
func checkSnapshotsGone(t *testing.T, srv *emulator.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		snaps, err := testAccClient(t, srv).ListSnapshots(context.Background(), e2b.ListSnapshotsParams{})
		if err != nil {
			return err
		}
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "e2b_snapshot" {
				continue
			}
			for _, snap := range snaps {
				if snap.SnapshotID == rs.Primary.ID {
					return fmt.Errorf("snapshot %s still exists after destroy", snap.SnapshotID)
				}
			}
		}
		return nil
	}
}

func TestAccSnapshot_cloneSeesFilesImportDelete(t *testing.T) {
	srv := testAccBackend(t)
	var cloneID, clone2ID, sourceID, snapshotID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkSnapshotsGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config: snapshotConfig(t, srv, true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("snapshot_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[a-z0-9]+:default$`))),
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("template_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[a-z0-9]+$`))),
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("names"), knownvalue.NotNull()),
				},
				Check: resource.ComposeTestCheckFunc(
					captureAttr("e2b_sandbox.clone", "id", &cloneID),
					captureAttr(sbAddr, "id", &sourceID),
					captureAttr(snapAddr, "snapshot_id", &snapshotID),
					checkRemoteFile(t, srv, &cloneID, "/home/user/data/state.txt", "prepared before the snapshot\n"),
					captureAttr("e2b_sandbox.clone_by_template_id", "id", &clone2ID),
					checkRemoteFile(t, srv, &clone2ID, "/home/user/data/state.txt", "prepared before the snapshot\n"),
				),
			},
			{
				ResourceName: snapAddr,
				ImportState:  true,
				ImportStateIdFunc: func(*terraform.State) (string, error) {
					return sourceID + ":" + snapshotID, nil
				},
				ImportStateVerify: true,
			},
		},
	})
}

// A named snapshot; deleting it outside Terraform plans a new one.
func TestAccSnapshot_namedAndDeletedOutside(t *testing.T) {
	srv := testAccBackend(t)
	var snapshotID string
	name := testAccName("snap")
	named := func(name string) config.Variables { return config.Variables{"name": config.StringVariable(name)} }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkSnapshotsGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config:          snapshotConfig(t, srv, false),
				ConfigVariables: named(name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("names"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(name))),
					})),
				},
				Check: captureAttr(snapAddr, "snapshot_id", &snapshotID),
			},
			{
				PreConfig: func() {
					if err := testAccClient(t, srv).DeleteSnapshot(context.Background(), snapshotID); err != nil {
						t.Fatal(err)
					}
				},
				Config:          snapshotConfig(t, srv, false),
				ConfigVariables: named(name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(snapAddr, plancheck.ResourceActionCreate),
				}},
			},
			{
				// A new name is a new snapshot.
				Config:          snapshotConfig(t, srv, false),
				ConfigVariables: named(name + "-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(snapAddr, plancheck.ResourceActionReplace),
				}},
			},
		},
	})
}
