package provider

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// These tests run the provider binary under the CLI (TF_ACC_TERRAFORM_PATH, else bin/tofu), as a
// user does: when a run fails or is interrupted, the CLIs skip the ephemeral resource's close and
// the provider kills its sandboxes when the CLI stops it, which only a real provider process shows.

const failingRunConfig = harness.RequiredProviders + `
variable "cmd" {
  type = string
}

ephemeral "e2b_sandbox" "run" {
  timeout = "10m" # Longer than the test: a sandbox that is gone was killed, not expired.
}

resource "e2b_sandbox_command" "first" {
  sandbox_id_wo = ephemeral.e2b_sandbox.run.id
  command       = "echo ok"
}

resource "e2b_sandbox_command" "then" {
  sandbox_id_wo = ephemeral.e2b_sandbox.run.id
  command       = var.cmd
  depends_on    = [e2b_sandbox_command.first]
}
`

// cliWorkspace is a workspace whose provider talks to the emulator through the recorder.
func cliWorkspace(t *testing.T) (*harness.Workspace, *e2bRecorder) {
	t.Helper()
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	skipBelowWriteOnly(t, ws)
	rec := newE2BRecorder(t, emu)
	ws.ExtraEnv = append(ws.ExtraEnv, "E2B_API_URL="+rec.URL(), "E2B_SANDBOX_URL="+rec.URL())
	ws.Write("main.tf", failingRunConfig)
	return ws, rec
}

// A saved plan is made (its sandbox killed, nothing of it in the plan file), then applied; a
// later resource fails, and the apply's sandbox is killed all the same.
func TestCLIEphemeralSandbox_failedApplyKillsIt(t *testing.T) {
	ws, rec := cliWorkspace(t)
	ctx := context.Background()
	ws.MustRun(ctx, "plan", "-no-color", "-input=false", "-out=tfplan", "-var", "cmd=exit 3")
	if len(rec.created()) != 1 {
		t.Fatalf("the plan created %d sandboxes, want 1", len(rec.created()))
	}
	if err := checkAllKilled(ws.Emulator, rec); err != nil {
		t.Fatalf("after the plan: %v", err)
	}
	planFile := filepath.Join(ws.Dir, "tfplan")
	if err := checkNotPersisted([]string{planFile}, allCreatedSecrets(rec)); err != nil {
		t.Fatal(err)
	}

	r := ws.Run(ctx, "apply", "-no-color", "-input=false", "tfplan")
	if r.Err == nil || !strings.Contains(r.Output(), "exit code 3") {
		t.Fatalf("apply should fail on the second command (exit code 3): %v\n%s", r.Err, r.Output())
	}
	if _, err := usedAndKilledSandbox(ws.Emulator, rec); err != nil {
		t.Fatalf("%v\n%s", err, r.Output())
	}
	if err := checkAllKilled(ws.Emulator, rec); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(ws.Dir, "terraform.tfstate*"))
	if err := checkNotPersisted(append(files, planFile), allCreatedSecrets(rec)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Output(), "e2b_sandbox_command.first: Creation complete") {
		t.Fatalf("the first command should have run in the sandbox:\n%s", r.Output())
	}
}

// SIGINT while a command runs in the ephemeral sandbox: the sandbox is killed as the CLI stops.
func TestCLIEphemeralSandbox_interruptKillsIt(t *testing.T) {
	ws, rec := cliWorkspace(t)
	cmd, out, id := startApplyRunning(t, ws, rec, "sleep 300")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := waitCLI(cmd, 60*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if err := rec.checkUsedAndKilled(ws.Emulator, id); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if err := checkAllKilled(ws.Emulator, rec); err != nil {
		t.Fatal(err)
	}
}

// startApplyRunning starts an apply whose ephemeral sandbox runs command and returns once that
// command is alive, with the sandbox's ID; a CLI that gets no further is killed and fails the test.
func startApplyRunning(t *testing.T, ws *harness.Workspace, rec *e2bRecorder, command string) (*exec.Cmd, *strings.Builder, string) {
	t.Helper()
	cmd, out := ws.Start(context.Background(), "apply", "-auto-approve", "-no-color", "-input=false", "-var", "cmd="+command)
	id, err := waitForCommand(t, ws, rec, command, 90*time.Second)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("%v\n%s", err, out.String())
	}
	return cmd, out, id
}

// waitForCommand waits until a process running command is alive in a sandbox the run created,
// and returns that sandbox's ID.
func waitForCommand(t *testing.T, ws *harness.Workspace, rec *e2bRecorder, command string, within time.Duration) (string, error) {
	client := testAccClient(t, ws.Emulator)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, c := range rec.created() {
			envd, err := client.SandboxEnvd(context.Background(), c.SandboxID, "")
			if err != nil {
				continue
			}
			procs, err := envd.ListProcesses(context.Background())
			if err != nil {
				continue
			}
			for _, p := range procs {
				if strings.Contains(strings.Join(p.Config.Args, " "), command) {
					return c.SandboxID, nil
				}
			}
		}
	}
	return "", fmt.Errorf("no sandbox ran %q within %s", command, within)
}

// waitCLI waits for an interrupted CLI to exit; its exit status does not matter.
func waitCLI(cmd *exec.Cmd, within time.Duration) error {
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(within):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("the CLI did not stop within %s of SIGINT", within)
	}
}

// skipBelowWriteOnly skips on a CLI older than 1.11 (Terraform and OpenTofu), which has no
// write-only attributes.
func skipBelowWriteOnly(t *testing.T, ws *harness.Workspace) {
	t.Helper()
	got := cliVersion(t, ws)
	if got.LessThan(version.Must(version.NewVersion("1.11.0"))) {
		t.Skipf("%s %s has no write-only attributes (Terraform and OpenTofu 1.11+ have)", ws.CLI, got)
	}
}
