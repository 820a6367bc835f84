package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const folderAddr = "e2b_sandbox_folder.app"

// localDigest is the folder digest the plan must show for dir.
func localDigest(t *testing.T, f e2b.LocalFolder) string {
	t.Helper()
	files, _, err := f.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return e2b.FolderDigest(files)
}

// checkRemoteFolder verifies files (path -> content, "" for absent) under dir in the sandbox.
func checkRemoteFolder(t *testing.T, srv *emulator.Server, sandboxID *string, dir string, files map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		envd := sandboxEnvd(t, srv, *sandboxID)
		for p, want := range files {
			got, err := readRemote(envd, dir+"/"+p)
			switch {
			case want == "" && e2b.IsNotFound(err):
			case want == "":
				return fmt.Errorf("%s/%s should be gone (read: %q, %v)", dir, p, got, err)
			case err != nil:
				return fmt.Errorf("read %s/%s: %w", dir, p, err)
			case got != want:
				return fmt.Errorf("%s/%s holds %q, want %q", dir, p, got, want)
			}
		}
		return nil
	}
}

// checkRemoteMode verifies a file's permission bits in the sandbox.
func checkRemoteMode(t *testing.T, srv *emulator.Server, sandboxID *string, p string, want uint32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		en, err := sandboxEnvd(t, srv, *sandboxID).Stat(context.Background(), p)
		if err != nil {
			return err
		}
		if en.Mode&0o777 != want {
			return fmt.Errorf("%s has mode %04o, want %04o", p, en.Mode&0o777, want)
		}
		return nil
	}
}

func folderConfig(srv *emulator.Server, src string) string {
	return testAccRequiredProviders() + filesTestConfig(srv, fmt.Sprintf(`
resource "e2b_sandbox_folder" "app" {
  sandbox_id  = e2b_sandbox.test.id
  source      = %q
  destination = "/home/user/app"
  exclude     = [".git", "**/__pycache__"]
}
`, src))
}

// A folder is uploaded with its modes, updated file by file, its drift inside the sandbox is
// planned back, it imports, and destroy removes only its own files and the directories it made.
func TestAccSandboxFolder_lifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{
		"main.py": "print('v1')\n", "run.sh*": "#!/bin/sh\npython3 main.py\n", "lib/util.py": "X = 1\n",
		".git/HEAD": "ref", "lib/__pycache__/util.pyc": "bytecode",
	})
	cfg := folderConfig(srv, src)
	folder := e2b.LocalFolder{Dir: src, Exclude: []string{".git", "**/__pycache__"}}
	const dest = "/home/user/app"
	var sandboxID string
	var utilModified time.Time
	statUtil := func(into *time.Time) resource.TestCheckFunc {
		return func(*terraform.State) error {
			en, err := sandboxEnvd(t, srv, sandboxID).Stat(context.Background(), dest+"/lib/util.py")
			if err != nil {
				return err
			}
			if into != nil {
				*into = en.ModifiedTime
			} else if !en.ModifiedTime.Equal(utilModified) {
				return fmt.Errorf("lib/util.py was written again although it did not change")
			}
			return nil
		}
	}
	digestIs := func() statecheck.StateCheck {
		return statecheck.ExpectKnownValue(folderAddr, tfjsonpath.New("sha256"), knownvalue.StringFunc(func(v string) error {
			if want := localDigest(t, folder); v != want {
				return fmt.Errorf("sha256 %s, want the local folder's %s", v, want)
			}
			return nil
		}))
	}
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				digestIs(),
				statecheck.ExpectKnownValue(folderAddr, tfjsonpath.New("files"), knownvalue.MapSizeExact(3)),
				statecheck.ExpectKnownValue(folderAddr, tfjsonpath.New("files").AtMapKey("run.sh").AtMapKey("mode"),
					knownvalue.StringExact("0755")),
				statecheck.ExpectKnownValue(folderAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`:/home/user/app$`))),
			},
			Check: resource.ComposeTestCheckFunc(
				captureAttr(sbAddr, "id", &sandboxID),
				checkRemoteFolder(t, srv, &sandboxID, dest, map[string]string{
					"main.py": "print('v1')\n", "lib/util.py": "X = 1\n", ".git/HEAD": "", "lib/__pycache__/util.pyc": "",
				}),
				checkRemoteMode(t, srv, &sandboxID, dest+"/run.sh", 0o755),
				checkRemoteMode(t, srv, &sandboxID, dest+"/main.py", 0o644),
				statUtil(&utilModified),
			),
		},
		{
			// One file edited: an update in place that writes that file only.
			PreConfig: func() { harness.WriteTree(t, src, map[string]string{"main.py": "print('v2')\n"}) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(folderAddr, tfjsonpath.New("files").AtMapKey("main.py").AtMapKey("sha256"),
					knownvalue.StringExact(sha256Hex("print('v2')\n"))),
			}},
			ConfigStateChecks: []statecheck.StateCheck{digestIs()},
			Check: resource.ComposeTestCheckFunc(
				checkRemoteFolder(t, srv, &sandboxID, dest, map[string]string{"main.py": "print('v2')\n"}),
				statUtil(nil),
			),
		},
		{
			// Drift inside the sandbox: an edit, a mode change and a deletion are planned back.
			PreConfig: sandboxShell(t, srv, &sandboxID,
				"cd /home/user/app && echo hacked > main.py && chmod 644 run.sh && rm lib/util.py"),
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{digestIs()},
			Check: resource.ComposeTestCheckFunc(
				checkRemoteFolder(t, srv, &sandboxID, dest, map[string]string{"main.py": "print('v2')\n", "lib/util.py": "X = 1\n"}),
				checkRemoteMode(t, srv, &sandboxID, dest+"/run.sh", 0o755),
			),
		},
		{Config: cfg, PlanOnly: true},
		{
			// Import by ID adopts every file under the destination: the same files, so the
			// same state.
			Config:                  cfg,
			ResourceName:            folderAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateIdFunc:       func(*terraform.State) (string, error) { return sandboxID + ":" + dest, nil },
			ImportStateVerifyIgnore: []string{"source", "exclude"},
		},
		{
			// A file gone from the source is removed, with the directory the resource made
			// for it.
			PreConfig: func() {
				if err := os.RemoveAll(filepath.Join(src, "lib")); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			Check: func(s *terraform.State) error {
				_, err := sandboxEnvd(t, srv, sandboxID).Stat(context.Background(), dest+"/lib")
				if !e2b.IsNotFound(err) {
					return fmt.Errorf("the emptied lib directory is still there (stat error %v)", err)
				}
				return checkRemoteFolder(t, srv, &sandboxID, dest, map[string]string{"lib/util.py": "", "main.py": "print('v2')\n"})(s)
			},
		},
		{
			// Destroy removes the resource's files and leaves what others put there.
			PreConfig: sandboxShell(t, srv, &sandboxID, "echo mine > /home/user/app/other.txt"),
			Config:    testAccRequiredProviders() + filesTestConfig(srv, ""),
			Check: resource.ComposeTestCheckFunc(
				checkRemoteFolder(t, srv, &sandboxID, dest, map[string]string{"main.py": "", "run.sh": "", "other.txt": "mine\n"}),
			),
		},
		{
			// Uploaded again into a destination that no longer holds anything of it, then
			// destroyed: the destination it created goes too.
			PreConfig: sandboxShell(t, srv, &sandboxID, "rm -r /home/user/app"),
			Config:    cfg,
		},
		{
			Config: testAccRequiredProviders() + filesTestConfig(srv, ""),
			Check: func(*terraform.State) error {
				_, err := sandboxEnvd(t, srv, sandboxID).Stat(context.Background(), dest)
				if !e2b.IsNotFound(err) {
					return fmt.Errorf("the destination the resource created is still there (stat error %v)", err)
				}
				return nil
			},
		},
	}))
}

// A refresh of an unchanged folder lists its directories and downloads nothing.
func TestAccSandboxFolder_refreshDownloadsOnlyChangedFiles(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = strings.Repeat("x", i)
	}
	harness.WriteTree(t, src, files)
	cfg := folderConfig(srv, src)
	var sandboxID string
	downloads := func(want int) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
			if n := srv.Counters().Requests["envd GET /files"]; n != want {
				return fmt.Errorf("the refresh downloaded %d files, want %d", n, want)
			}
			return nil
		})}}
	}
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: resource.ComposeTestCheckFunc(
			captureAttr(sbAddr, "id", &sandboxID),
			func(*terraform.State) error { srv.ResetCounters(); return nil },
		)},
		{Config: cfg, PlanOnly: true, ConfigPlanChecks: downloads(0)},
		{
			// Same size, new content: the modification time tells, and only that file is read.
			PreConfig:          sandboxShell(t, srv, &sandboxID, "sleep 0.01; echo -n yyyyy > /home/user/app/d1/f5.txt"),
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks:   downloads(1),
		},
	}))
}

// A killed sandbox takes the folder out of state, and the next apply uploads it to the new one.
func TestAccSandboxFolder_sandboxGone(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{"a.txt": "a"})
	cfg := folderConfig(srv, src)
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: captureAttr(sbAddr, "id", &sandboxID)},
		sandboxKilledStep(t, srv, &sandboxID, cfg, folderAddr),
	}))
}

// Bad inputs fail at plan time, before any request.
func TestAccSandboxFolder_badInputs(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{"only.md": "x"})
	file := filepath.Join(src, "only.md")
	cases := []struct{ name, source, dest, extra, want string }{
		{"missing source", "does/not/exist", "/home/user/app", "", `(?s)must name an existing local folder, but\s+does/not/exist\s+does\s+not\s+exist`},
		{"source is a file", file, "/home/user/app", "", `(?s)must be a folder, but.*is a file`},
		{"relative destination", src, "app", "", `(?s)destination must be an absolute path`},
		{"root destination", src, "/", "", `(?s)must name a directory below "/"`},
		{"unclean destination", src, "/home/user/app/", "", `(?s)clean form \(/home/user/app\)`},
		{"absolute pattern", src, "/home/user/app", `exclude = ["/etc"]`, `(?s)Invalid pattern.*is absolute`},
		{"nothing selected", src, "/home/user/app", `include = ["*.py"]`, `(?s)Nothing to upload.*include and exclude`},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{planErrorStep(testAccProviderBlock(srv)+fmt.Sprintf(`
resource "e2b_sandbox_folder" "bad" {
  sandbox_id  = "isandbox"
  source      = %q
  destination = %q
  %s
}
`, c.source, c.dest, c.extra), c.want)},
			})
		})
	}
	testAccCheckNoRequests(t, srv, "bad folder inputs")
}

// Import blocks by identity and by ID (Terraform/OpenTofu 1.12+) adopt the folder's files as they
// are: the plan only records source and the patterns, which the sandbox cannot tell.
func TestAccSandboxFolder_importByIdentity(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{"a.txt": "a", "bin/run*": "#!/bin/sh\n"})
	cfg := folderConfig(srv, src)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			identityStep(cfg, folderAddr, map[string]knownvalue.Check{
				"sandbox_id":  knownvalue.NotNull(),
				"destination": knownvalue.StringExact("/home/user/app"),
			}),
			importStep(cfg, resource.ImportBlockWithResourceIdentity),
			importStep(cfg, resource.ImportBlockWithID),
		},
	})
}

// importStep imports the folder with an import block and expects an update that changes no file.
func importStep(cfg string, kind resource.ImportStateKind) resource.TestStep {
	step := importBlockStep(cfg, folderAddr, kind)
	step.ExpectNonEmptyPlan = true
	step.ImportPlanChecks = resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
		filesUnchanged{},
	}}
	return step
}

// filesUnchanged checks that a plan leaves the folder's files and digest as they are.
type filesUnchanged struct{}

func (filesUnchanged) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != folderAddr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		for _, attr := range []string{"files", "sha256"} {
			if fmt.Sprint(before[attr]) != fmt.Sprint(after[attr]) || before[attr] == nil {
				resp.Error = fmt.Errorf("the import plans a change of %s: %v -> %v", attr, before[attr], after[attr])
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", folderAddr)
}

// A file edited between plan and apply: a create plans its files as known after apply and sends
// what the folder holds then; an update fails at apply with the provider's error naming the file
// (never the CLI's "inconsistent final plan"), before anything is written; the next plan uploads
// the edited file.
func TestAccSandboxFolder_changedBetweenPlanAndApply(t *testing.T) {
	srv := newTestEmulator(t)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{"a.txt": "planned", "b.txt": "b"})
	cfg := folderConfig(srv, src)
	editAfterPlan := func(content string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planFileCheck(func() error {
			harness.WriteTree(t, src, map[string]string{"a.txt": content})
			srv.ResetCounters()
			return nil
		})}}
	}
	sumIs := func(content string) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(folderAddr,
			tfjsonpath.New("files").AtMapKey("a.txt").AtMapKey("sha256"), knownvalue.StringExact(sha256Hex(content)))}
	}
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config:            cfg,
			ConfigPlanChecks:  editAfterPlan("edited after the create's plan"),
			ConfigStateChecks: sumIs("edited after the create's plan"),
		},
		{
			PreConfig:        func() { harness.WriteTree(t, src, map[string]string{"a.txt": "update planned"}) },
			Config:           cfg,
			ConfigPlanChecks: editAfterPlan("edited after the update's plan"),
			ExpectError:      regexp.MustCompile(`(?s)Local files changed since the plan.*a\.txt \(edited\).*Run plan again`),
		},
		{
			PreConfig: func() {
				if n := srv.Counters().Requests["envd POST /files"]; n != 0 {
					t.Fatalf("the failed apply uploaded %d times", n)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: sumIs("edited after the update's plan"),
		},
	}))
}

// A file that differs from the plan when it is sent (edited after the CLI's last plan) fails the
// apply, naming it, and the new state records what the sandbox holds, so nothing written is
// forgotten and the next plan writes the file again.
func TestSandboxFolderApply_fileChangedSincePlan(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	sb, err := testAccClient(t, srv).CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 300})
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{"a.txt": "sent"})
	typ := p.schema.ResourceSchemas["e2b_sandbox_folder"].ValueType()
	filesType := typ.(tftypes.Object).AttributeTypes["files"].(tftypes.Map)
	fileType := filesType.ElementType.(tftypes.Object)
	files := tftypes.NewValue(filesType, map[string]tftypes.Value{"a.txt": tftypes.NewValue(fileType, map[string]tftypes.Value{
		"sha256": str(sha256Hex("planned")), "size": tftypes.NewValue(tftypes.Number, 7), "mode": str("0644"),
	})})
	cfg := map[string]tftypes.Value{"sandbox_id": str(sb.SandboxID), "source": str(src), "destination": str("/home/user/app")}
	planned := map[string]tftypes.Value{"files": files, "sha256": str("planned-digest"),
		"id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}
	for k, v := range cfg {
		planned[k] = v
	}
	prior, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox_folder", PriorState: &prior, PlannedState: p.dynamicValue(typ, planned), Config: p.dynamicValue(typ, cfg),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary != "Folder changed during apply" ||
		!strings.Contains(resp.Diagnostics[0].Detail, "a.txt") {
		t.Fatalf("diagnostics %+v, want one naming a.txt", resp.Diagnostics)
	}
	state, err := resp.NewState.Unmarshal(typ)
	if err != nil || state.IsNull() {
		t.Fatalf("no state recorded for the files written: %v", err)
	}
	var attrs map[string]tftypes.Value
	_ = state.As(&attrs)
	var got map[string]tftypes.Value
	_ = attrs["files"].As(&got)
	var file map[string]tftypes.Value
	_ = got["a.txt"].As(&file)
	if sum := stringOf(t, file["sha256"]); sum != sha256Hex("sent") {
		t.Fatalf("state records sha256 %s for a.txt, want that of what was sent", sum)
	}
}

// A source that is a link to a directory uploads that directory (current -> releases/v2), and
// a link inside it that leads out of it is never read; the next plan is empty.
func TestAccSandboxFolder_sourceIsLink(t *testing.T) {
	srv := newTestEmulator(t)
	base, outside := t.TempDir(), t.TempDir()
	harness.WriteTree(t, outside, map[string]string{"credentials": "secret"})
	harness.WriteTree(t, base, map[string]string{"releases/v2/app.py": "v2", "releases/v1/app.py": "v1"})
	for link, target := range map[string]string{"current": "releases/v2",
		"releases/v2/creds": filepath.Join(outside, "credentials"), "releases/v2/environ": "/proc/self/environ"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Skipf("symbolic links not available here: %v", err)
		}
	}
	cfg := folderConfig(srv, filepath.Join(base, "current"))
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(folderAddr, tfjsonpath.New("files"), knownvalue.MapSizeExact(1)),
		},
		Check: resource.ComposeTestCheckFunc(
			captureAttr(sbAddr, "id", &sandboxID),
			checkRemoteFolder(t, srv, &sandboxID, "/home/user/app", map[string]string{"app.py": "v2", "creds": "", "environ": ""}),
		),
	}}))
}
