package e2b_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// TestExecStdinSurvivesTransientFailures: a gateway's 5xx on SendInput is
// sent again, so every byte arrives once.
func TestExecStdinSurvivesTransientFailures(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	e.srv.SetFaults(emulator.Faults{ErrorRate: 0.5, Statuses: []int{502, 503}, Seed: 2,
		Routes: []string{"envd /process.Process/SendInput"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	input := strings.Repeat("0123456789abcdef", 20000) // several SendInput calls
	res, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: "sha256sum | cut -d' ' -f1", Stdin: strings.NewReader(input), Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	sum := sha256.Sum256([]byte(input))
	if got := strings.TrimSpace(res.Stdout); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("the command saw other input: sha256 %s", got)
	}
	if e.srv.Counters().FaultsInjected == 0 {
		t.Fatal("no fault was injected; the test proves nothing")
	}
}

// TestExecReportsLostStdin: when stdin cannot be sent, the process gets the
// end of its input (instead of waiting for the rest until its timeout) and
// Exec says that stdin was cut short.
func TestExecReportsLostStdin(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	e.srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"envd /process.Process/SendInput"}})
	t.Cleanup(func() { e.srv.SetFaults(emulator.Faults{}) })
	res, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: "wc -c", Stdin: strings.NewReader(strings.Repeat("x", 100000)), Timeout: 20 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "stdin") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("exec with stdin that cannot be sent: %v; want an error about stdin", err)
	}
	if res == nil || res.TimedOut || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "0" {
		t.Fatalf("result %+v: the process must see its input end (nothing arrived), not wait until its timeout", res)
	}
}
