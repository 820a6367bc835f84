package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A paused sandbox whose snapshot fails after the resume goes back to its pause, also where the
// caller meant to kill it after a snapshot: its work is not left to the resume's short timeout.
func TestEmulatorSnapshotInAnyStateFailurePausesAgain(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})
	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	e.srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{500}, Seed: 1, Routes: []string{"POST /sandboxes/{id}/snapshots"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	snap, resumed, err := e.c.TakeLatestSnapshotInAnyState(e.ctx, sb.SandboxID, "kept", false)
	if err == nil || snap != nil || !resumed {
		t.Fatalf("snapshot %v, resumed %v, err %v: want the failure of a resumed sandbox", snap, resumed, err)
	}
	if !strings.Contains(err.Error(), "paused again") {
		t.Errorf("the error %q does not say the sandbox was paused again", err)
	}
	detail, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil {
		t.Fatal(err)
	}
	if !detail.Paused() {
		t.Fatalf("the sandbox is %q after the failed snapshot, want paused", detail.State)
	}
}
