package provider

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
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

// filesTestConfig is a sandbox plus the given resource blocks.
func filesTestConfig(srv *emulator.Server, blocks string) string {
	return testAccProviderBlock(srv) + `
resource "e2b_sandbox" "test" {
  timeout = "15m"
}
` + blocks
}

// noteFileConfig is filesTestConfig with the file noteAddr at path holding content.
func noteFileConfig(srv *emulator.Server, path, content string) string {
	return filesTestConfig(srv, fmt.Sprintf(`
resource "e2b_sandbox_file" "note" {
  sandbox_id = e2b_sandbox.test.id
  path       = %q
  content    = %q
}
`, path, content))
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// captureAttr stores an attribute of a resource for later steps.
func captureAttr(address, attr string, into *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		v, err := testAccAttr(s, address, attr)
		*into = v
		return err
	}
}

// sandboxEnvd connects to a sandbox by ID, as a test outside Terraform.
func sandboxEnvd(t *testing.T, srv *emulator.Server, sandboxID string) *e2b.Envd {
	t.Helper()
	envd, err := testAccClient(t, srv).SandboxEnvd(context.Background(), sandboxID, "")
	if err != nil {
		t.Fatalf("envd for %s: %v", sandboxID, err)
	}
	return envd
}

func readRemote(envd *e2b.Envd, path string) (string, error) {
	rc, err := envd.ReadFile(context.Background(), path, e2b.ReadOptions{})
	if err != nil {
		return "", err
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// checkRemoteFile verifies the file's content inside the sandbox.
func checkRemoteFile(t *testing.T, srv *emulator.Server, sandboxID *string, path, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := readRemote(sandboxEnvd(t, srv, *sandboxID), path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if got != want {
			return fmt.Errorf("%s holds %q, want %q", path, got, want)
		}
		return nil
	}
}

// sandboxShell runs a command in the sandbox outside Terraform (to make drift).
func sandboxShell(t *testing.T, srv *emulator.Server, sandboxID *string, command string) func() {
	return func() {
		res, err := sandboxEnvd(t, srv, *sandboxID).Exec(context.Background(), e2b.ExecRequest{Command: command})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%q: %v %+v", command, err, res)
		}
	}
}

const (
	noteAddr   = "e2b_sandbox_file.note"
	scriptAddr = "e2b_sandbox_file.script"
	binAddr    = "e2b_sandbox_file.bin"
)

// Write three kinds of content, update in place, follow a local source file,
// repair drift made inside the sandbox (edit and delete), then import.
func TestAccSandboxFile_writeUpdateDriftImport(t *testing.T) {
	srv := testAccBackend(t)
	local := filepath.Join(t.TempDir(), "setup.sh")
	if err := os.WriteFile(local, []byte("echo v1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	files := func(note string) config.Variables {
		return config.Variables{"note": config.StringVariable(note), "script": config.StringVariable(local)}
	}
	var sandboxID string
	updated := plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionUpdate)

	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config:          cfg,
			ConfigVariables: files("hello\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("absolute_path"), knownvalue.StringExact("/home/user/notes/hello.txt")),
				statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("sha256"), knownvalue.StringExact(sha256Hex("hello\n"))),
				statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("size"), knownvalue.Int64Exact(6)),
				statecheck.ExpectKnownValue(scriptAddr, tfjsonpath.New("absolute_path"), knownvalue.StringExact("/home/user/bin/setup.sh")),
				statecheck.ExpectKnownValue(scriptAddr, tfjsonpath.New("sha256"), knownvalue.StringExact(sha256Hex("echo v1\n"))),
				statecheck.ExpectKnownValue(binAddr, tfjsonpath.New("size"), knownvalue.Int64Exact(4)),
				statecheck.ExpectKnownValue(binAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^[a-z0-9]+:/opt/data/blob.bin$`))),
			},
			Check: resource.ComposeTestCheckFunc(
				captureAttr(sbAddr, "id", &sandboxID),
				checkRemoteFile(t, srv, &sandboxID, "/home/user/notes/hello.txt", "hello\n"),
				checkRemoteFile(t, srv, &sandboxID, "/home/user/bin/setup.sh", "echo v1\n"),
				checkRemoteFile(t, srv, &sandboxID, "/opt/data/blob.bin", "\x00\x01\x02\xff"),
			),
		},
		{
			// New content: rewritten in place.
			Config:           cfg,
			ConfigVariables:  files("hello again\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{updated}},
			Check:            checkRemoteFile(t, srv, &sandboxID, "/home/user/notes/hello.txt", "hello again\n"),
		},
		{
			// The local source file changed: the plan hashes it and rewrites the copy.
			PreConfig: func() {
				if err := os.WriteFile(local, []byte("echo v2\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			Config:          cfg,
			ConfigVariables: files("hello again\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(scriptAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(scriptAddr, tfjsonpath.New("sha256"), knownvalue.StringExact(sha256Hex("echo v2\n"))),
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionNoop),
			}},
			Check: checkRemoteFile(t, srv, &sandboxID, "/home/user/bin/setup.sh", "echo v2\n"),
		},
		{
			// Edited inside the sandbox: the refresh sees another hash, the apply restores it.
			PreConfig:        sandboxShell(t, srv, &sandboxID, "echo tampered > ~/notes/hello.txt"),
			Config:           cfg,
			ConfigVariables:  files("hello again\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{updated}},
			Check:            checkRemoteFile(t, srv, &sandboxID, "/home/user/notes/hello.txt", "hello again\n"),
		},
		{
			// Deleted inside the sandbox: the refresh drops it, the apply writes it again.
			PreConfig:       sandboxShell(t, srv, &sandboxID, "rm ~/notes/hello.txt"),
			Config:          cfg,
			ConfigVariables: files("hello again\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionCreate),
			}},
			Check: checkRemoteFile(t, srv, &sandboxID, "/home/user/notes/hello.txt", "hello again\n"),
		},
		{
			// Same size, same content: nothing to do, and no download happened to know it.
			Config:          cfg,
			ConfigVariables: files("hello again\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
		{
			ResourceName:    noteAddr,
			ImportState:     true,
			ConfigVariables: files("hello again\n"), // the import runs with the configuration above
			ImportStateIdFunc: func(*terraform.State) (string, error) {
				return sandboxID + ":/home/user/notes/hello.txt", nil
			},
			ImportStateVerify: true,
			// The import fills content for small text files; path comes back absolute.
			ImportStateVerifyIgnore: []string{"path"},
		},
	}))
}

// Refresh of an unchanged file stats it but never downloads it (the first refresh after a write
// knows it by the tag the write left); a file written again without that tag is downloaded, and
// an edit that keeps the size is still found through the modification time.
func TestAccSandboxFile_refreshDownloadsOnlyChangedFiles(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := filesTestConfig(srv, `
resource "e2b_sandbox_file" "note" {
  sandbox_id = e2b_sandbox.test.id
  path       = "big.txt"
  content    = join("", [for i in range(1000) : "line ${i}\n"])
}
`)
	var sandboxID string
	// Plan checks run in plan-only steps (Check functions do not).
	downloads := func(want func(int) bool, what string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
			if n := srv.Counters().Requests["envd GET /files"]; !want(n) {
				return fmt.Errorf("%s: %d downloads", what, n)
			}
			return nil
		})}}
	}
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: resource.ComposeTestCheckFunc(
			captureAttr(sbAddr, "id", &sandboxID),
			func(*terraform.State) error { srv.ResetCounters(); return nil },
		)},
		{
			Config:           cfg,
			PlanOnly:         true,
			ConfigPlanChecks: downloads(func(n int) bool { return n == 0 }, "refresh of an unchanged file downloaded it"),
		},
		{
			// Written again by someone else, with the same bytes: the write's tag is gone, so
			// the refresh downloads and hashes it, and finds nothing to change.
			PreConfig: func() {
				content := strings.Builder{}
				for i := range 1000 {
					fmt.Fprintf(&content, "line %d\n", i)
				}
				_, err := sandboxEnvd(t, srv, sandboxID).WriteFile(context.Background(), "/home/user/big.txt",
					strings.NewReader(content.String()), e2b.WriteOptions{})
				if err != nil {
					t.Fatal(err)
				}
			},
			Config:           cfg,
			PlanOnly:         true,
			ConfigPlanChecks: downloads(func(n int) bool { return n > 0 }, "an untagged file must be downloaded and hashed"),
		},
		{
			// Same size, new content: only the modification time tells.
			PreConfig:          sandboxShell(t, srv, &sandboxID, "sleep 0.01; sed -i 's/line 7$/LINE 7/' ~/big.txt"),
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks:   downloads(func(n int) bool { return n > 0 }, "a changed file must be downloaded and hashed"),
		},
	}))
}

// Removing the resource deletes the file; a killed sandbox takes its files out of state.
func TestAccSandboxFile_deleteAndSandboxGone(t *testing.T) {
	srv := testAccBackend(t)
	withFile := noteFileConfig(srv, "/home/user/gone.txt", "bye")
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: withFile, Check: captureAttr(sbAddr, "id", &sandboxID)},
		{
			Config: filesTestConfig(srv, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionDestroy),
			}},
			Check: func(*terraform.State) error {
				_, err := sandboxEnvd(t, srv, sandboxID).Stat(context.Background(), "/home/user/gone.txt")
				if !e2b.IsNotFound(err) {
					return fmt.Errorf("file still there after destroy (stat error %v)", err)
				}
				return nil
			},
		},
		{Config: withFile},
		sandboxKilledStep(t, srv, &sandboxID, withFile, noteAddr),
	}))
}

// Bad inputs fail at plan time, before anything is created or any request is made.
func TestAccSandboxFile_badInputs(t *testing.T) {
	srv := newTestEmulator(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	const onePath = `path = "x.txt"` + "\n  "
	cases := []struct{ name, body, want string }{
		{"two contents", onePath + `content = "a"
  content_base64 = "YQ=="`, `(?s)Invalid Attribute Combination.*Exactly one of these attributes must be\s+configured`},
		{"no content", onePath, `(?s)Missing Attribute Configuration.*Exactly one of these attributes`},
		{"missing source", onePath + `source = "does/not/exist.txt"`, `the local file\s+does/not/exist.txt\s+does\s+not\s+exist`},
		{"source is a directory", onePath + fmt.Sprintf("source = %q", dir), `(?s)must be a regular file, but\s+\S+\s+is a\s+directory`},
		{"source is a device", onePath + `source = "/dev/zero"`, `must be a regular file,\s+but\s+/dev/zero\s+is\s+a\s+character\s+device`},
		{"source links to a device", onePath + fmt.Sprintf("source = %q", link), `(?s)is a\s+character\s+device`},
		{"source is a pipe", onePath + fmt.Sprintf("source = %q", fifo), `(?s)is a\s+named\s+pipe`},
		{"bad base64", onePath + `content_base64 = "not base64!"`, `content_base64 must be standard base64`},
		{"path is home", `path = "~"` + "\n  content = \"a\"", `must name a file`},
		{"path is dot", `path = "."` + "\n  content = \"a\"", `must name a file`},
		{"path goes up to a directory", `path = "/tmp/.."` + "\n  content = \"a\"", `must name a file`},
		{"path ends in a slash", `path = "app/"` + "\n  content = \"a\"", `must name a file`},
		{"NUL in path", `path = "a\u0000b"` + "\n  content = \"a\"", `must not contain\s+control\s+characters`},
		{"newline in path", `path = "a\nb"` + "\n  content = \"a\"", `must not contain\s+control\s+characters`},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, testAccCase(t, nil, []resource.TestStep{badSandboxChildStep(srv, "e2b_sandbox_file", c.body, c.want)}))
		})
	}
	testAccCheckNoRequests(t, srv, "bad file inputs")
}

// Hashing stops when the plan is cancelled, even on a stream that never ends.
func TestHashStreamStopsOnCancel(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("needs /dev/zero, an endless stream: " + err.Error())
	}
	defer func() { _ = f.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, _, err := e2b.HashStream(ctx, f); !errors.Is(err, context.Canceled) {
		t.Fatalf("hashStream of an endless stream = %v, want context.Canceled", err)
	}
}

// planCheckFunc runs a function as a plan check.
type planCheckFunc func() error

func (f planCheckFunc) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// A paused sandbox cannot be checked: its files stay in state unchanged.
func TestAccSandboxFile_pausedSandboxKeepsFile(t *testing.T) {
	srv := testAccBackend(t)
	cfg := noteFileConfig(srv, "kept.txt", "kept")
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: captureAttr(sbAddr, "id", &sandboxID)},
		{
			PreConfig: func() {
				if err := testAccClient(t, srv).PauseSandbox(context.Background(), sandboxID); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate), // resumed
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionNoop),
			}},
			Check: checkRemoteFile(t, srv, &sandboxID, "/home/user/kept.txt", "kept"),
		},
	}))
}

// A 32 MiB local file goes up as a stream and is hashed the same on both sides.
func TestAccSandboxFile_largeSource(t *testing.T) {
	srv := testAccBackend(t)
	local := filepath.Join(t.TempDir(), "big.bin")
	want := harness.WriteRandomFile(t, local, 32<<20, 1)
	cfg := filesTestConfig(srv, fmt.Sprintf(`
resource "e2b_sandbox_file" "note" {
  sandbox_id = e2b_sandbox.test.id
  path       = "big.bin"
  source     = %q
}
`, local))
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("sha256"), knownvalue.StringExact(want)),
			statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("size"), knownvalue.Int64Exact(32<<20)),
		},
		Check: resource.ComposeTestCheckFunc(
			captureAttr(sbAddr, "id", &sandboxID),
			func(*terraform.State) error {
				rc, err := sandboxEnvd(t, srv, sandboxID).ReadFile(context.Background(), "/home/user/big.bin", e2b.ReadOptions{})
				if err != nil {
					return err
				}
				defer func() { _ = rc.Close() }()
				got, n, err := e2b.HashStream(context.Background(), rc)
				if err != nil || got != want || n != 32<<20 {
					return fmt.Errorf("sandbox copy: sha256 %s, %d bytes, %v; want %s", got, n, err, want)
				}
				return nil
			},
		),
	}}))
}

// Another spelling of the same path updates in place; a new path replaces.
func TestAccSandboxFile_pathSpellings(t *testing.T) {
	srv := testAccBackend(t)
	cfg := func(p string) string {
		return filesTestConfig(srv, fmt.Sprintf(`
resource "e2b_sandbox_file" "note" {
  sandbox_id = e2b_sandbox.test.id
  path       = %q
  content    = "same file"
}
`, p))
	}
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg("docs/a.txt"), Check: captureAttr(sbAddr, "id", &sandboxID)},
		{
			Config: cfg("~/docs/a.txt"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkRemoteFile(t, srv, &sandboxID, "/home/user/docs/a.txt", "same file"),
		},
		{
			Config: cfg("/home/user/docs/b.txt"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(noteAddr, tfjsonpath.New("absolute_path"), knownvalue.StringExact("/home/user/docs/b.txt")),
			},
			Check: func(*terraform.State) error {
				if _, err := sandboxEnvd(t, srv, sandboxID).Stat(context.Background(), "/home/user/docs/a.txt"); !e2b.IsNotFound(err) {
					return fmt.Errorf("the old path still exists (stat: %v)", err)
				}
				return nil
			},
		},
	}))
}

// Import blocks by identity and by ID (Terraform/OpenTofu 1.12+).
func TestAccSandboxFile_importByIdentity(t *testing.T) {
	srv := testAccBackend(t)
	cfg := testAccRequiredProviders() + noteFileConfig(srv, "/home/user/identity.txt", "who am I")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			identityStep(cfg, noteAddr, map[string]knownvalue.Check{
				"sandbox_id": knownvalue.NotNull(),
				"path":       knownvalue.StringExact("/home/user/identity.txt"),
			}),
			importBlockStep(cfg, noteAddr, resource.ImportBlockWithResourceIdentity),
			importBlockStep(cfg, noteAddr, resource.ImportBlockWithID),
		},
	})
}

// A JSON file adopted by import comes back as content_base64: generated configuration writes
// content as jsonencode(...), which would drop its whitespace and final newline and rewrite it.
func TestAccSandboxFile_importedJSONKeepsItsBytes(t *testing.T) {
	srv := newTestEmulator(t)
	const pretty = "{\n  \"name\": \"app\",\n  \"debug\": true\n}\n"
	cfg := filesTestConfig(srv, `
resource "e2b_sandbox_file" "json" {
  sandbox_id     = e2b_sandbox.test.id
  path           = "/home/user/app.json"
  content_base64 = "`+base64.StdEncoding.EncodeToString([]byte(pretty))+`"
}
`)
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg},
		{
			ResourceName: "e2b_sandbox_file.json",
			ImportState:  true,
			ImportStateIdFunc: func(s *terraform.State) (string, error) {
				return s.RootModule().Resources["e2b_sandbox.test"].Primary.ID + ":/home/user/app.json", nil
			},
			ImportStateVerify: true,
		},
	}))
}

// sandboxKilledStep kills the sandbox outside Terraform; the plan of config then creates it
// and the object at addr again, as a killed sandbox takes its objects out of state.
func sandboxKilledStep(t *testing.T, srv *emulator.Server, sandboxID *string, config, addr string) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() {
			if err := testAccClient(t, srv).KillSandbox(context.Background(), *sandboxID); err != nil {
				t.Fatal(err)
			}
		},
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
		}},
	}
}
