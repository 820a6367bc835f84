// Package harness runs the real provider binary under a real OpenTofu CLI
// against an in-process E2B emulator. The chaos suite and the benchmarks use
// it; unlike terraform-plugin-testing it keeps the provider in its own process,
// so faults, signals and the provider's memory are those a user would see.
package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// ProviderAddress is the source address the workspaces use; dev_overrides
// maps it (under both registries' hostnames) to the freshly built binary.
const ProviderAddress = "e2b-terraform/e2b"

// RequiredProviders is the terraform block a workspace's configuration starts with: it names
// the provider by ProviderAddress, the address dev_overrides maps.
const RequiredProviders = `
terraform {
  required_providers {
    e2b = { source = "` + ProviderAddress + `" }
  }
}
`

// RepoRoot returns the directory holding go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// RequireCLI skips unless TF_ACC is set, and fails when it is set but no
// OpenTofu or Terraform binary can be found.
func RequireCLI(tb testing.TB) string {
	tb.Helper()
	if os.Getenv("TF_ACC") == "" {
		tb.Skip("set TF_ACC=1 to run tests that drive a real OpenTofu/Terraform CLI (make test does)")
	}
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p := filepath.Join(RepoRoot(tb), "bin", "tofu")
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("no CLI: set TF_ACC_TERRAFORM_PATH or run `make test-tools` to build %s", p)
	}
	return p
}

var (
	buildMu   sync.Mutex
	buildDirs = map[string]string{}
)

// ProviderDir builds the provider once per test binary and returns the
// directory that holds it.
func ProviderDir(tb testing.TB) string {
	tb.Helper()
	return BuildProvider(tb, ".")
}

// BuildProvider builds the Go package pkg (relative to the repository root)
// as terraform-provider-e2b, once per test binary, and returns its directory.
func BuildProvider(tb testing.TB, pkg string) string {
	tb.Helper()
	return Build(tb, pkg, "terraform-provider-e2b")
}

// Build builds the Go package pkg (relative to the repository root) as an
// executable called name, once per test binary, and returns its directory.
func Build(tb testing.TB, pkg, name string) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	key := pkg + "\x00" + name
	if dir, ok := buildDirs[key]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "e2b-provider-")
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
	cmd.Dir = RepoRoot(tb)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	buildDirs[key] = dir
	return dir
}

// Workspace is one OpenTofu working directory bound to an emulator.
type Workspace struct {
	tb        testing.TB
	CLI       string
	Dir       string
	Emulator  *emulator.Server
	ExtraEnv  []string
	cliConfig string
	// LogFile, when set, receives TF_LOG output of every run (TF_LOG_PATH).
	LogFile string
}

// NewWorkspace prepares an empty working directory whose provider is the
// freshly built binary and whose credentials point at srv.
func NewWorkspace(tb testing.TB, srv *emulator.Server) *Workspace {
	tb.Helper()
	return NewWorkspaceWith(tb, srv, ProviderDir(tb))
}

// NewWorkspaceWith is NewWorkspace with the provider binary in provDir
// (see BuildProvider); srv may be nil for a provider that calls nothing.
func NewWorkspaceWith(tb testing.TB, srv *emulator.Server, provDir string) *Workspace {
	tb.Helper()
	return NewWorkspaceOverriding(tb, srv, map[string]string{ProviderAddress: provDir})
}

// NewWorkspaceOverriding is NewWorkspace with dev_overrides for every provider
// source address in overrides (such as "hashicorp/time"), each mapped to the
// directory holding its binary.
func NewWorkspaceOverriding(tb testing.TB, srv *emulator.Server, overrides map[string]string) *Workspace {
	tb.Helper()
	cli := RequireCLI(tb)
	dir := tb.TempDir()
	cfg := filepath.Join(dir, ".tofurc")
	var lines strings.Builder
	for address, provDir := range overrides {
		fmt.Fprintf(&lines, "    \"registry.opentofu.org/%[1]s\" = %[2]q\n    \"registry.terraform.io/%[1]s\" = %[2]q\n", address, provDir)
	}
	rc := "provider_installation {\n  dev_overrides {\n" + lines.String() + "  }\n  direct {}\n}\n"
	if err := os.WriteFile(cfg, []byte(rc), 0o600); err != nil {
		tb.Fatal(err)
	}
	return &Workspace{tb: tb, CLI: cli, Dir: dir, Emulator: srv, cliConfig: cfg}
}

// Write puts a file into the working directory.
func (w *Workspace) Write(name, content string) {
	w.tb.Helper()
	if err := os.WriteFile(filepath.Join(w.Dir, name), []byte(content), 0o600); err != nil {
		w.tb.Fatal(err)
	}
}

// Result is what one CLI run produced.
type Result struct {
	Stdout, Stderr string
	Err            error
	Elapsed        time.Duration
	// CPU is the user and system time of the CLI and of every process it
	// started and waited for (its providers).
	CPU time.Duration
}

// Output is stdout and stderr together, for error messages.
func (r Result) Output() string { return r.Stdout + r.Stderr }

func (w *Workspace) env() []string {
	env := []string{
		"TF_CLI_CONFIG_FILE=" + w.cliConfig,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
	}
	if w.Emulator != nil {
		env = append(env,
			"E2B_API_KEY="+w.Emulator.APIKey(),
			"E2B_API_URL="+w.Emulator.APIURL(),
			"E2B_SANDBOX_URL="+w.Emulator.SandboxURL())
	}
	if w.LogFile != "" {
		env = append(env, "TF_LOG=TRACE", "TF_LOG_PATH="+w.LogFile)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "E2B_") || k == "CHECKPOINT_DISABLE" {
			continue // the workspace decides these
		}
		env = append(env, kv)
	}
	return append(env, w.ExtraEnv...)
}

// Command builds (without starting) a CLI invocation in the workspace.
func (w *Workspace) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.CLI, args...)
	cmd.Dir = w.Dir
	cmd.Env = w.env()
	return cmd
}

// Run runs the CLI to completion.
func (w *Workspace) Run(ctx context.Context, args ...string) Result {
	cmd := w.Command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Err: err, Elapsed: time.Since(start)}
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return r
}

// MustRun runs the CLI to completion and fails the test, with the CLI's output, unless it
// succeeds.
func (w *Workspace) MustRun(ctx context.Context, args ...string) Result {
	w.tb.Helper()
	r := w.Run(ctx, args...)
	if r.Err != nil {
		w.tb.Fatalf("%s: %v\n%s", strings.Join(args, " "), r.Err, r.Output())
	}
	return r
}

// Start starts the CLI without waiting for it, for a test that interrupts or kills it; its
// stdout and stderr go to the one buffer returned.
func (w *Workspace) Start(ctx context.Context, args ...string) (*exec.Cmd, *strings.Builder) {
	w.tb.Helper()
	cmd := w.Command(ctx, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		w.tb.Fatal(err)
	}
	return cmd, &out
}

// Apply runs `apply -auto-approve` with extra arguments.
func (w *Workspace) Apply(ctx context.Context, args ...string) Result {
	return w.Run(ctx, append([]string{"apply", "-auto-approve", "-no-color", "-input=false"}, args...)...)
}

// Destroy runs `destroy -auto-approve` with extra arguments.
func (w *Workspace) Destroy(ctx context.Context, args ...string) Result {
	return w.Run(ctx, append([]string{"destroy", "-auto-approve", "-no-color", "-input=false"}, args...)...)
}

// StateResource is one resource instance from `show -json`.
type StateResource struct {
	Address string         `json:"address"`
	Type    string         `json:"type"`
	Values  map[string]any `json:"values"`
}

// State reads the current state's resources.
func (w *Workspace) State(ctx context.Context) []StateResource {
	w.tb.Helper()
	r := w.Run(ctx, "show", "-json", "-no-color")
	if r.Err != nil {
		w.tb.Fatalf("show -json: %v\n%s", r.Err, r.Output())
	}
	var doc struct {
		Values *struct {
			RootModule struct {
				Resources []StateResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		w.tb.Fatalf("decode state: %v", err)
	}
	if doc.Values == nil {
		return nil
	}
	return doc.Values.RootModule.Resources
}

// SandboxIDsInState lists the IDs of every e2b_sandbox in state.
func (w *Workspace) SandboxIDsInState(ctx context.Context) []string {
	var ids []string
	for _, r := range w.State(ctx) {
		if r.Type == "e2b_sandbox" {
			if id, ok := r.Values["id"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}
