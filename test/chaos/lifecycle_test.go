package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const lifecycleConfig = harness.RequiredProviders + `
variable "cmd" {
  type    = string
  default = "true"
}
variable "timeout" {
  type    = string
  default = "10m"
}
variable "upload" {
  type    = string
  default = ""
}

resource "e2b_sandbox" "s" {
  timeout = var.timeout
}

resource "e2b_sandbox_command" "c" {
  sandbox_id = e2b_sandbox.s.id
  command    = var.cmd
  timeout    = "10m"
}

resource "e2b_sandbox_file" "big" {
  count      = var.upload == "" ? 0 : 1
  sandbox_id = e2b_sandbox.s.id
  path       = "/tmp/big.bin"
  source     = var.upload
}
`

// cleanDiagnostic is what an error about a sandbox that went away must say,
// without a crash or a raw stack.
var cleanDiagnostic = regexp.MustCompile(`(?i)(not running|expired|killed|no longer exists|not found)`)

func newClient(t *testing.T, srv *emulator.Server) *e2b.Client {
	t.Helper()
	c, err := e2b.New(e2b.Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitForProcess polls the only sandbox until a process whose command line
// contains needle runs, and returns the sandbox ID and the process's PID.
func waitForProcess(t *testing.T, srv *emulator.Server, needle string, within time.Duration) (string, uint32) {
	t.Helper()
	c := newClient(t, srv)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, id := range srv.SandboxIDs() {
			detail, err := c.GetSandbox(context.Background(), id)
			if err != nil {
				continue
			}
			procs, err := c.Envd(e2b.EnvdTarget{SandboxID: id, AccessToken: detail.EnvdAccessToken}).ListProcesses(context.Background())
			if err != nil {
				continue
			}
			for _, p := range procs {
				if strings.Contains(strings.Join(p.Config.Args, " "), needle) {
					return id, p.PID
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no process matching %q appeared within %s", needle, within)
	return "", 0
}

func processAlive(t *testing.T, srv *emulator.Server, id string, pid uint32) bool {
	t.Helper()
	c := newClient(t, srv)
	detail, err := c.GetSandbox(context.Background(), id)
	if err != nil {
		t.Fatalf("get sandbox %s: %v", id, err)
	}
	procs, err := c.Envd(e2b.EnvdTarget{SandboxID: id, AccessToken: detail.EnvdAccessToken}).ListProcesses(context.Background())
	if err != nil {
		t.Fatalf("list processes: %v", err)
	}
	for _, p := range procs {
		if p.PID == pid {
			return true
		}
	}
	return false
}

// expectRecreatePlan asserts the next plan wants to create the sandbox again.
func expectRecreatePlan(t *testing.T, ctx context.Context, ws *harness.Workspace, vars ...string) {
	t.Helper()
	r := ws.Run(ctx, append([]string{"plan", "-detailed-exitcode", "-no-color", "-input=false"}, vars...)...)
	if code := exitCode(r.Err); code != 2 {
		t.Fatalf("plan exit code %d, want 2 (changes):\n%s", code, r.Output())
	}
	if !strings.Contains(r.Stdout, "e2b_sandbox.s will be created") {
		t.Fatalf("plan does not re-create the sandbox:\n%s", r.Stdout)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func mustApply(t *testing.T, ctx context.Context, ws *harness.Workspace, vars ...string) {
	t.Helper()
	if r := ws.Apply(ctx, vars...); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Output())
	}
}

func destroyAndCheck(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server, vars ...string) {
	t.Helper()
	if r := ws.Destroy(ctx, vars...); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
	if ids := srv.SandboxIDs(); len(ids) != 0 {
		t.Fatalf("sandboxes left after destroy: %v", ids)
	}
}

// TestChaosExpiryBetweenPlanAndApply: a saved plan changes a sandbox that
// expires before the apply. The apply fails with a clear message, and the
// next plan re-creates the sandbox.
func TestChaosExpiryBetweenPlanAndApply(t *testing.T) {
	ctx := context.Background()
	srv, ws := chaosWorkspace(t, lifecycleConfig)
	mustApply(t, ctx, ws)
	ids := srv.SandboxIDs()
	if len(ids) != 1 {
		t.Fatalf("want one sandbox, have %v", ids)
	}

	ws.MustRun(ctx, "plan", "-out=change.tfplan", "-no-color", "-input=false", "-var", "timeout=15m")
	if err := srv.Expire(ids[0]); err != nil {
		t.Fatal(err)
	}
	r := ws.Run(ctx, "apply", "-no-color", "-input=false", "change.tfplan")
	if r.Err == nil {
		t.Fatalf("apply of a plan for an expired sandbox succeeded:\n%s", r.Output())
	}
	if !cleanDiagnostic.MatchString(r.Stderr) || strings.Contains(r.Output(), "panic") {
		t.Fatalf("diagnostic does not say the sandbox is gone:\n%s", r.Stderr)
	}
	t.Logf("diagnostic: %s", lastError(r.Stderr))
	expectRecreatePlan(t, ctx, ws, "-var", "timeout=15m")
	mustApply(t, ctx, ws, "-var", "timeout=15m")
	if got := srv.Counters().SandboxesCreated; got != 2 {
		t.Fatalf("sandboxes created %d, want 2 (the original and its replacement)", got)
	}
	destroyAndCheck(t, ctx, ws, srv, "-var", "timeout=15m")
}

// TestChaosKilledMidCommand: the sandbox dies while a command runs in it.
func TestChaosKilledMidCommand(t *testing.T) {
	ctx := context.Background()
	srv, ws := chaosWorkspace(t, lifecycleConfig)

	done := make(chan harness.Result, 1)
	go func() { done <- ws.Apply(ctx, "-var", "cmd=sleep 120") }()
	id, _ := waitForProcess(t, srv, "sleep 120", 90*time.Second)
	if err := srv.Expire(id); err != nil {
		t.Fatal(err)
	}
	var r harness.Result
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("apply still running 90 s after its sandbox was killed")
	}
	if r.Err == nil {
		t.Fatalf("apply succeeded although the sandbox was killed mid-command:\n%s", r.Output())
	}
	if !cleanDiagnostic.MatchString(r.Stderr) || strings.Contains(r.Output(), "panic") {
		t.Fatalf("diagnostic does not say the sandbox is gone:\n%s", r.Stderr)
	}
	t.Logf("diagnostic: %s", lastError(r.Stderr))
	expectRecreatePlan(t, ctx, ws)
	mustApply(t, ctx, ws)
	destroyAndCheck(t, ctx, ws, srv)
}

// TestChaosInterruptLongCommand: SIGINT to the CLI while a command runs kills
// the command inside the sandbox and leaves state consistent.
func TestChaosInterruptLongCommand(t *testing.T) {
	ctx := context.Background()
	srv, ws := chaosWorkspace(t, lifecycleConfig)

	cmd, out := ws.Start(ctx, "apply", "-auto-approve", "-no-color", "-input=false", "-var", "cmd=sleep 300")
	id, pid := waitForProcess(t, srv, "sleep 300", 90*time.Second)
	t.Logf("interrupted apply ended: %v", interruptCLI(t, cmd, out, 60*time.Second))
	deadline := time.Now().Add(15 * time.Second)
	for processAlive(t, srv, id, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("command (pid %d) still runs in sandbox %s after the interrupt", pid, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	assertStateMatchesEmulator(t, ctx, ws, srv)
	mustApply(t, ctx, ws) // cmd back to "true": converges
	destroyAndCheck(t, ctx, ws, srv)
}

// TestChaosInterruptLargeUpload: SIGINT during a large upload leaves state
// consistent, and the next apply completes the file.
func TestChaosInterruptLargeUpload(t *testing.T) {
	ctx := context.Background()
	srv, ws := chaosWorkspace(t, lifecycleConfig)
	mustApply(t, ctx, ws)

	src := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(512 << 20); err != nil { // sparse: cheap to make, real bytes to send
		t.Fatal(err)
	}
	_ = f.Close()
	vars := []string{"-var", "upload=" + src}

	before := srv.Counters().Requests["envd POST /files"]
	cmd, out := ws.Start(ctx, append([]string{"apply", "-auto-approve", "-no-color", "-input=false"}, vars...)...)
	deadline := time.Now().Add(90 * time.Second)
	for srv.Counters().Requests["envd POST /files"] == before {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("upload never started:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("interrupted apply ended: %v", interruptCLI(t, cmd, out, 60*time.Second))
	assertStateMatchesEmulator(t, ctx, ws, srv)
	mustApply(t, ctx, ws, vars...)
	for _, r := range ws.State(ctx) {
		if r.Type == "e2b_sandbox_file" {
			if size, _ := r.Values["size"].(float64); int64(size) != 512<<20 {
				t.Fatalf("file size in state %v, want %d", r.Values["size"], 512<<20)
			}
		}
	}
	destroyAndCheck(t, ctx, ws, srv, vars...)
}

// interruptCLI sends SIGINT to a CLI started by harness.Workspace.Start and fails the test unless it stops
// within the given time; it returns how the CLI ended.
func interruptCLI(t *testing.T, cmd *exec.Cmd, out *strings.Builder, within time.Duration) error {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := waitTimeout(cmd.Wait, within)
	if errors.Is(err, errStillRunning) {
		_ = cmd.Process.Kill()
		t.Fatalf("CLI did not stop within %d s of SIGINT:\n%s", int(within/time.Second), out.String())
	}
	return err
}

var errStillRunning = errors.New("still running")

// waitTimeout waits for wait to return, at most d.
func waitTimeout(wait func() error, d time.Duration) error {
	ch := make(chan error, 1)
	go func() { ch <- wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		return fmt.Errorf("%w after %s", errStillRunning, d)
	}
}

// assertStateMatchesEmulator: every live sandbox is in state and the other
// way round, and a plan can be made.
func assertStateMatchesEmulator(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server) {
	t.Helper()
	inState := ws.SandboxIDsInState(ctx)
	alive := srv.SandboxIDs()
	if strings.Join(inState, ",") != strings.Join(alive, ",") {
		t.Fatalf("state has sandboxes %v, emulator has %v", inState, alive)
	}
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false"); r.Err != nil {
		t.Fatalf("plan after interruption: %v\n%s", r.Err, r.Output())
	}
}
