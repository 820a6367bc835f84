package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const volumeAddr = "e2b_volume.shared"

func TestAccVolume_sharedAcrossSandboxes(t *testing.T) {
	srv := newTestEmulator(t)
	var volumeID string
	resource.ParallelTest(t, testAccCase(t, testAccCheckVolumesGone(t, srv), []resource.TestStep{
		{
			Config: testAccProviderBlock(srv) + testAccTestdata(t, "volume.tf", "sharing.tf"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox_command.read", tfjsonpath.New("stdout"), knownvalue.StringExact("written-by-a\n")),
				statecheck.ExpectKnownValue(volumeAddr, tfjsonpath.New("token"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.e2b_volumes.all", tfjsonpath.New("volumes"), knownvalue.ListPartial(map[int]knownvalue.Check{
					0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("acc-shared")}),
				})),
				statecheck.ExpectKnownValue("e2b_sandbox.b", tfjsonpath.New("volume_mounts"),
					knownvalue.MapExact(map[string]knownvalue.Check{"acc-shared": knownvalue.StringExact("/home/user/data")})),
			},
			Check: func(s *terraform.State) error {
				id, err := testAccAttr(s, volumeAddr, "volume_id")
				volumeID = id
				return err
			},
		},
		{
			// Both sandboxes go; a new one still sees the file.
			Config: testAccProviderBlock(srv) + testAccTestdata(t, "volume.tf", "later.tf"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox_command.read_later", tfjsonpath.New("stdout"), knownvalue.StringExact("written-by-a\n")),
			},
		},
		{
			// The token reaches the state only on request, and then as a sensitive value.
			Config: testAccProviderBlock(srv) + testAccTestdata(t, "volume.tf", "later.tf", "exposed.tf"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectSensitiveValue("e2b_volume.exposed", tfjsonpath.New("token")),
			},
			Check: func(s *terraform.State) error {
				tok, err := testAccAttr(s, "e2b_volume.exposed", "token")
				if err == nil && len(tok) < 20 {
					err = fmt.Errorf("token %q does not look like a token", tok)
				}
				return err
			},
		},
		{
			ResourceName:      volumeAddr,
			ImportState:       true,
			ImportStateVerify: true,
			ImportStateId:     "acc-shared", // by name
		},
		{
			ResourceName:      volumeAddr,
			ImportState:       true,
			ImportStateVerify: true,
			ImportStateIdFunc: func(*terraform.State) (string, error) { return volumeID, nil },
		},
		{
			// Renaming replaces the volume.
			Config: testAccProviderBlock(srv) + testAccTestdata(t, "renamed.tf"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
		},
	}))
}

// A volume still mounted by a sandbox outside the configuration cannot be
// destroyed, and the error says why.
func TestAccVolume_deleteWhileMounted(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	var outsider string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config: testAccProviderBlock(srv) + `
resource "e2b_volume" "shared" {
  name = "acc-shared"
}
`,
			Check: func(*terraform.State) error {
				sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{
					TemplateID: "base", Timeout: 600, VolumeMounts: []e2b.VolumeMount{{Name: "acc-shared", Path: "/data"}},
				})
				if err == nil {
					outsider = sb.SandboxID
				}
				return err
			},
		},
		{
			Config:      testAccProviderBlock(srv),
			ExpectError: regexp.MustCompile(`(?s)Volume acc-shared is still mounted.*Destroy those sandboxes`),
		},
		{
			PreConfig: func() {
				if err := client.KillSandbox(context.Background(), outsider); err != nil {
					t.Fatalf("kill %s: %v", outsider, err)
				}
			},
			Config: testAccProviderBlock(srv),
		},
	}))
}

func TestAccSandbox_volumeMountsValidation(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ mounts, want string }{
		{`{ v = "data" }`, `must be an absolute path`},
		{`{ v = "/" }`, `cannot be mounted at /`},
		{`{ v = "/d", w = "/d" }`, `is used by volumes "v" and "w"`},
		{`{ v = "/d/" }`, `is not in clean form: write "/d"`},
		{`{ v = "/mnt/a\nb" }`, `must not contain control characters`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, testAccCase(t, nil, []resource.TestStep{{
				Config:      testAccProviderBlock(srv) + fmt.Sprintf("resource \"e2b_sandbox\" \"x\" {\n  volume_mounts = %s\n}\n", tc.mounts),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(regexp.QuoteMeta(tc.want)),
			}}))
		})
	}
	testAccCheckNoRequests(t, srv, "invalid mounts")
}

func testAccCheckVolumesGone(t *testing.T, srv *emulator.Server) func(*terraform.State) error {
	return func(s *terraform.State) error {
		list, err := testAccClient(t, srv).ListVolumes(context.Background())
		if err != nil {
			return err
		}
		if len(list) != 0 {
			return fmt.Errorf("volumes left after destroy: %+v", list)
		}
		return nil
	}
}
