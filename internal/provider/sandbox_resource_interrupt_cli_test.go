package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// Ctrl-C while E2B is still making the sandbox: the error says the run was interrupted (not that
// the create timeout ran out), and the sandbox E2B made anyway is kept in state, tainted, so the
// next apply replaces it.
func TestCLISandbox_interruptedCreateSaysInterrupted(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	ws.Write("main.tf", harness.RequiredProviders+`
resource "e2b_sandbox" "box" {
  timeout = "10m"
}
`)
	emu.SetFaults(emulator.Faults{CreateDelay: 4 * time.Second, Routes: []string{"POST /v2/sandboxes"}})
	cmd, out := ws.Start(context.Background(), "apply", "-auto-approve", "-no-color", "-input=false")
	if err := waitForRequest(emu, "POST /v2/sandboxes", 60*time.Second); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("%v\n%s", err, out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := waitCLI(cmd, 90*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "Sandbox creation interrupted") || strings.Contains(got, "create timeout") {
		t.Fatalf("the error should say the run was interrupted, not that the create timed out:\n%s", got)
	}
	emu.SetFaults(emulator.Faults{})
	plan := ws.Run(context.Background(), "plan", "-no-color", "-input=false")
	tainted := regexp.MustCompile(`e2b_sandbox\.box is tainted, so (it )?must be replaced`) // Terraform's, OpenTofu's
	if plan.Err != nil || !tainted.MatchString(plan.Output()) {
		t.Fatalf("the sandbox E2B made should be in state, tainted: %v\n%s\n-- apply:\n%s", plan.Err, plan.Output(), got)
	}
	ws.MustRun(context.Background(), "destroy", "-auto-approve", "-no-color", "-input=false")
	if n := len(emu.SandboxIDs()); n != 0 {
		t.Fatalf("%d sandboxes left after destroy", n)
	}
}

// waitForRequest waits until the emulator has seen a request on route.
func waitForRequest(emu *emulator.Server, route string, within time.Duration) error {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if emu.Counters().Requests[route] > 0 {
			return nil
		}
	}
	return fmt.Errorf("no %s request within %s", route, within)
}
