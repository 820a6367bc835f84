package chaos

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// chaosPlans are E2B's limits per plan, as the emulator models them.
var chaosPlans = map[string]emulator.Limits{
	"hobby": {CreateRate: 1, MaxConcurrentSandboxes: 20, APIRequests: 20000, APIPeriod: 30 * time.Second},
	"pro":   {CreateRate: 5, MaxConcurrentSandboxes: 100, APIRequests: 20000, APIPeriod: 30 * time.Second},
}

// chaosLimits are the limits every emulator of the suite starts with:
// E2B_CHAOS_LIMITS=hobby or pro runs the whole suite within a plan's
// limits; unset, none.
func chaosLimits(t *testing.T) emulator.Limits {
	t.Helper()
	name := os.Getenv("E2B_CHAOS_LIMITS")
	if name == "" {
		return emulator.Limits{}
	}
	l, ok := chaosPlans[name]
	if !ok {
		t.Fatalf("E2B_CHAOS_LIMITS=%q: want hobby or pro", name)
	}
	return l
}

// TestChaosLimitsInterruptedPacedApply: SIGINT while creates wait their turn
// within Hobby's create rate leaves every sandbox made in state, and the
// next apply makes only the missing ones.
func TestChaosLimitsInterruptedPacedApply(t *testing.T) {
	ctx := context.Background()
	srv := startEmulator(t)
	srv.SetLimits(chaosPlans["hobby"])
	ws := harness.NewWorkspace(t, srv)
	ws.Write("main.tf", cyclesConfig)
	vars := []string{"-var", "n=10", "-var", "gen=0"}

	cmd, out := ws.Start(ctx, append([]string{"apply", "-auto-approve", "-no-color", "-input=false", "-parallelism=10"}, vars...)...)
	deadline := time.Now().Add(90 * time.Second)
	for srv.Counters().SandboxesCreated < 3 || srv.LimitRefusals().CreateRate == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("creates never reached the rate:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	err := interruptCLI(t, cmd, out, 60*time.Second)
	t.Logf("interrupted apply ended after %d creates: %v", srv.Counters().SandboxesCreated, err)
	inState, alive := ws.SandboxIDsInState(ctx), srv.SandboxIDs()
	sort.Strings(inState)
	if strings.Join(inState, ",") != strings.Join(alive, ",") {
		t.Fatalf("after the interrupt state has sandboxes %v, the emulator %v", inState, alive)
	}
	// The next apply makes the missing sandboxes, and replaces those an interrupted create
	// found after its context ended (kept in state, tainted): each replacement deletes one.
	srv.ResetCounters()
	mustApply(t, ctx, ws, vars...)
	c := srv.Counters()
	made, replaced := c.SandboxesCreated, c.Requests["DELETE /sandboxes/{id}"]
	after := ws.SandboxIDsInState(ctx)
	sort.Strings(after)
	if len(after) != 10 || strings.Join(after, ",") != strings.Join(srv.SandboxIDs(), ",") {
		t.Fatalf("after the next apply state has %v, the emulator %v", after, srv.SandboxIDs())
	}
	if made != 10-len(inState)+replaced {
		t.Fatalf("the next apply made %d sandboxes with %d in state and %d replaced: want %d", made, len(inState), replaced, 10-len(inState)+replaced)
	}
	t.Logf("the next apply made %d sandboxes (%d kept, %d replaced)", made, len(inState), replaced)
	destroyAndCheck(t, ctx, ws, srv, vars...)
}

// TestChaosLimitsUnderFaults: cycles of apply and destroy within a small
// plan's limits (a create every two seconds, eight sandboxes at once) while
// requests fail, drop or lose their answers: no orphan, no duplicate,
// nothing dropped from state.
func TestChaosLimitsUnderFaults(t *testing.T) {
	ctx := context.Background()
	srv := startEmulator(t)
	srv.SetLimits(emulator.Limits{CreateRate: 0.5, MaxConcurrentSandboxes: 8})
	ws := harness.NewWorkspace(t, srv)
	ws.Write("main.tf", cyclesConfig)
	var fig figures
	const n = 6
	for c := 0; c < 2; c++ {
		args := []string{"-parallelism=10", "-var", fmt.Sprintf("n=%d", n), "-var", fmt.Sprintf("gen=%d", c)}
		converge(t, ctx, ws, srv, chaosFaults(int64(1000+c)), &fig, "apply", args)
		converge(t, ctx, ws, srv, chaosFaults(int64(2000+c)), &fig, "destroy", args)
		for _, id := range srv.SandboxIDs() {
			fig.orphans++
			t.Errorf("cycle %d: sandbox %s left behind after destroy", c, id)
		}
	}
	fig.duplicates = srv.Counters().SandboxesCreated - 2*n
	r := srv.LimitRefusals()
	t.Logf("limits under faults: %+v, refusals %+v, faults injected %d", fig, r, srv.Counters().FaultsInjected)
	if r.CreateRate == 0 {
		t.Fatal("no create was refused for the rate: the run proves nothing")
	}
	if fig.orphans != 0 || fig.duplicates != 0 || fig.droppedOrLost != 0 || fig.unconverged != 0 || fig.planDriftAfterA != 0 {
		t.Fatalf("chaos targets missed: %+v", fig)
	}
}

// TestChaosLimitsRefreshPacedWithinTheAPIRate: a plan that refreshes 16 sandboxes against E2B's
// API rate at 4 requests per 4 s (the emulator's -api-rate 4/4s) succeeds with the provider's
// default retry settings: every read E2B refuses waits its turn and is sent again, where it used
// to fail after max_retries with a message about creates.
func TestChaosLimitsRefreshPacedWithinTheAPIRate(t *testing.T) {
	ctx := context.Background()
	srv := startEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	ws.Write("main.tf", harness.RequiredProviders+`
resource "e2b_sandbox" "s" {
  count    = 16
  timeout  = "10m"
  metadata = { suite = "chaos-api-rate", index = tostring(count.index) }
}
`)
	mustApply(t, ctx, ws)
	srv.SetLimits(emulator.Limits{APIRequests: 4, APIPeriod: 4 * time.Second})
	r := ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode")
	if r.Err != nil {
		t.Fatalf("plan under the API rate: %v\n%s", r.Err, r.Output())
	}
	if !strings.Contains(r.Output(), "No changes") {
		t.Fatalf("plan under the API rate planned changes:\n%s", r.Output())
	}
	refused := srv.LimitRefusals().APIRate
	if refused == 0 {
		t.Fatal("the emulator refused no request: the test did not reach the rate")
	}
	t.Logf("the plan's refresh of 16 sandboxes was refused %d times", refused)
	srv.SetLimits(emulator.Limits{})
	destroyAndCheck(t, ctx, ws, srv)
}
