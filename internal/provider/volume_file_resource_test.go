package provider

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

const volumeFileAddr = "e2b_volume_file.conf"

func volumeFileConfig(srv *emulator.Server, file string) string {
	return testAccRequiredProviders() + testAccProviderBlock(srv) + `
resource "e2b_volume" "data" {
  name = "acc-volume-file"
}
` + file
}

func volumeFileBlock(attrs string) string {
	return `
resource "e2b_volume_file" "conf" {
  volume_id = e2b_volume.data.id
  path      = "/conf/app/settings.txt"
` + attrs + `
}
`
}

// readVolumeFile reads a file of the volume outside Terraform.
func readVolumeFile(t *testing.T, srv *emulator.Server, volumeID, p string) (string, *e2b.VolumeEntry, error) {
	files := testAccClient(t, srv).VolumeFiles(volumeID)
	entry, err := files.Stat(context.Background(), p)
	if err != nil {
		return "", nil, err
	}
	body, err := files.ReadFile(context.Background(), p)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = body.Close() }()
	b, err := io.ReadAll(body)
	return string(b), entry, err
}

func checkVolumeFile(t *testing.T, srv *emulator.Server, volumeID *string, want string, mode uint32) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := testAccAttr(s, "e2b_volume.data", "id")
		if err != nil {
			return err
		}
		*volumeID = id
		got, entry, err := readVolumeFile(t, srv, id, "/conf/app/settings.txt")
		if err != nil {
			return err
		}
		if got != want || entry.Mode != mode {
			return fmt.Errorf("volume holds %q with mode %04o, want %q with mode %04o", got, entry.Mode, want, mode)
		}
		return nil
	}
}

func TestAccVolumeFile_lifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	var volumeID string
	resource.ParallelTest(t, testAccCase(t, testAccCheckVolumesGone(t, srv), []resource.TestStep{
		{
			// Create, with the parent directories.
			Config: volumeFileConfig(srv, volumeFileBlock(`content = "v1"
  mode = "0640"`)),
			Check: resource.ComposeTestCheckFunc(checkVolumeFile(t, srv, &volumeID, "v1", 0o640), checkNoVolumeToken(t, srv)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(volumeFileAddr, tfjsonpath.New("sha256"),
					knownvalue.StringExact("3bfc269594ef649228e9a74bab00f042efc91d5acc6fbee31a382e80d42388fe")),
				statecheck.ExpectKnownValue(volumeFileAddr, tfjsonpath.New("size"), knownvalue.Int64Exact(2)),
			},
		},
		{
			// New content: rewritten in place, the mode kept.
			Config: volumeFileConfig(srv, volumeFileBlock(`content = "version two"
  mode = "0640"`)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeFileAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkVolumeFile(t, srv, &volumeID, "version two", 0o640),
		},
		{
			// Only the mode: changed in place without a rewrite.
			PreConfig: func() { srv.ResetCounters() },
			Config: volumeFileConfig(srv, volumeFileBlock(`content = "version two"
  mode = "0600"`)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeFileAddr, plancheck.ResourceActionUpdate),
			}},
			Check: resource.ComposeTestCheckFunc(
				checkVolumeFile(t, srv, &volumeID, "version two", 0o600),
				func(*terraform.State) error {
					if n := srv.Counters().Requests["PUT /volumecontent/{id}/file"]; n != 0 {
						return fmt.Errorf("a mode change uploaded the file %d times", n)
					}
					return nil
				}),
		},
		{
			// Changed through a sandbox that mounts the volume: the plan writes it back.
			PreConfig: func() { writeThroughSandbox(t, srv, volumeID, "/conf/app/settings.txt", "edited in a sandbox") },
			Config: volumeFileConfig(srv, volumeFileBlock(`content = "version two"
  mode = "0600"`)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeFileAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkVolumeFile(t, srv, &volumeID, "version two", 0o600),
		},
		{
			Config: volumeFileConfig(srv, volumeFileBlock(`content = "version two"
  mode = "0600"`)),
			ResourceName:      volumeFileAddr,
			ImportState:       true,
			ImportStateVerify: true,
			ImportStateIdFunc: func(*terraform.State) (string, error) { return volumeID + ":/conf/app/settings.txt", nil },
		},
		{
			// The file goes, its directories stay.
			Config: volumeFileConfig(srv, ""),
			Check: func(*terraform.State) error {
				files := testAccClient(t, srv).VolumeFiles(volumeID)
				if _, err := files.Stat(context.Background(), "/conf/app/settings.txt"); !e2b.IsNotFound(err) {
					return fmt.Errorf("the file is still there: %v", err)
				}
				if _, err := files.Stat(context.Background(), "/conf/app"); err != nil {
					return fmt.Errorf("its directory went with it: %v", err)
				}
				return nil
			},
		},
	}))
}

// writeThroughSandbox changes a volume's file the way a workload does: in a
// sandbox that mounts the volume. The sandbox is killed before returning.
func writeThroughSandbox(t *testing.T, srv *emulator.Server, volumeID, p, content string) {
	t.Helper()
	ctx := context.Background()
	c := testAccClient(t, srv)
	vol, err := c.GetVolume(ctx, volumeID)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 300,
		VolumeMounts: []e2b.VolumeMount{{Name: vol.Name, Path: "/mnt/vol"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.KillSandbox(ctx, sb.SandboxID) }()
	envd := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	if _, err := envd.WriteFile(ctx, "/mnt/vol"+p, strings.NewReader(content), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestAccVolumeFile_identityImport(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := volumeFileConfig(srv, volumeFileBlock(`content = "by identity"`))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			identityStep(cfg, volumeFileAddr, map[string]knownvalue.Check{
				"volume_id": knownvalue.NotNull(),
				"path":      knownvalue.StringExact("/conf/app/settings.txt"),
			}),
			importBlockStep(cfg, volumeFileAddr, resource.ImportBlockWithResourceIdentity),
		},
	})
}

func TestAccVolumeFile_source(t *testing.T) {
	srv := newTestEmulator(t)
	src := filepath.Join(t.TempDir(), "seed.bin")
	if err := os.WriteFile(src, []byte("seed data"), 0o600); err != nil {
		t.Fatal(err)
	}
	var volumeID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config: volumeFileConfig(srv, volumeFileBlock(fmt.Sprintf("source = %q\n  uid = %d\n  gid = %d", src, os.Getuid(), os.Getgid()))),
			Check:  checkVolumeFile(t, srv, &volumeID, "seed data", 0o644),
		},
		{
			// An edited source file plans a rewrite.
			PreConfig: func() {
				if err := os.WriteFile(src, []byte("seed data, edited"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			Config: volumeFileConfig(srv, volumeFileBlock(fmt.Sprintf("source = %q\n  uid = %d\n  gid = %d", src, os.Getuid(), os.Getgid()))),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeFileAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkVolumeFile(t, srv, &volumeID, "seed data, edited", 0o644),
		},
		{
			// Deleted outside Terraform: planned again.
			PreConfig: func() {
				if err := testAccClient(t, srv).VolumeFiles(volumeID).RemoveFile(context.Background(), "/conf/app/settings.txt"); err != nil {
					t.Fatal(err)
				}
			},
			Config: volumeFileConfig(srv, volumeFileBlock(fmt.Sprintf("source = %q\n  uid = %d\n  gid = %d", src, os.Getuid(), os.Getgid()))),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeFileAddr, plancheck.ResourceActionCreate),
			}},
			Check: checkVolumeFile(t, srv, &volumeID, "seed data, edited", 0o644),
		},
	}))
}

func TestAccVolumeFile_badInputRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	src := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(src, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(p, attrs string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_volume_file" "bad" {
  volume_id = "vol-1"
  path      = %q
%s
}
`, p, attrs)
	}
	testAccRefusedWithoutRequests(t, srv, []resource.TestStep{
		planErrorStep(file("conf/a.txt", `content = "x"`), `absolute path inside the volume`),
		planErrorStep(file("/conf/../../etc/passwd", `content = "x"`), `must not contain "\.\."`),
		planErrorStep(file("/conf//a.txt", `content = "x"`), `clean path`),
		planErrorStep(file("/", `content = "x"`), `not the volume's root`),
		planErrorStep(file("/conf/", `content = "x"`), `end with`),
		planErrorStep(file("/a.txt", fmt.Sprintf("content = \"x\"\n  source = %q", src)), `(?s)Invalid Attribute Combination`),
		planErrorStep(file("/a.txt", ""), `(?s)Missing Attribute Configuration`),
		planErrorStep(file("/a.txt", `content = "x"
  mode = "rw-r--r--"`), `octal mode`),
		planErrorStep(file("/a.txt", `content = "x"
  mode = "644"`), `(?s)must be written "0644"`),
		planErrorStep(file("/a.txt", `content = "x"
  mode = "00755"`), `(?s)must be written "0755"`),
		planErrorStep(file("/a.txt", `content = "x"
  mode = "4755"`), `(?s)permission bits only.*"0755"`),
		planErrorStep(file("/a.txt", `content = "x"
  mode = "1777"`), `(?s)permission bits only.*"0777"`),
		planErrorStep(file("/a.txt", `content = "x"
  uid = -1`), `between 0 and 4294967295`),
		planErrorStep(file("/a.txt", `content_base64 = "not base64!"`), `standard base64`),
		planErrorStep(file("/a.txt", `source = "/no/such/file"`), `does not exist`),
	})
}

// checkNoVolumeToken fails when the volume's content token is anywhere in state.
func checkNoVolumeToken(t *testing.T, srv *emulator.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := testAccAttr(s, "e2b_volume.data", "id")
		if err != nil {
			return err
		}
		vol, err := testAccClient(t, srv).GetVolume(context.Background(), id)
		if err != nil {
			return err
		}
		for addr, rs := range s.RootModule().Resources {
			for k, v := range rs.Primary.Attributes {
				if strings.Contains(v, vol.Token) {
					return fmt.Errorf("%s.%s holds the volume's token", addr, k)
				}
			}
		}
		return nil
	}
}
