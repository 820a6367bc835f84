package chaos

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// cyclesConfig is n sandboxes, each with a file and a command that reads it.
// var.gen changes the timeout (in-place update), the file content (in-place
// update) and so the command's trigger (re-run).
const cyclesConfig = retryingHeader + `
variable "n" { type = number }
variable "gen" { type = number }

resource "e2b_sandbox" "s" {
  count    = var.n
  timeout  = "${600 + var.gen}s"
  metadata = { suite = "chaos", index = tostring(count.index) }
}

resource "e2b_sandbox_file" "f" {
  count      = var.n
  sandbox_id = e2b_sandbox.s[count.index].id
  path       = "/home/user/data.txt"
  content    = "generation ${var.gen} of sandbox ${count.index}\n"
}

resource "e2b_sandbox_command" "c" {
  count      = var.n
  sandbox_id = e2b_sandbox.s[count.index].id
  command    = "cat /home/user/data.txt"
  triggers   = { content = e2b_sandbox_file.f[count.index].sha256 }
}
`

// figures are what the chaos run reports; the target for each is zero.
type figures struct {
	appliesFailed   int // apply or destroy runs that ended in an error
	orphans         int // sandboxes alive on the emulator after a destroy converged
	duplicates      int // sandboxes ever created beyond what the plans asked for
	droppedOrLost   int // sandboxes alive on the emulator but absent from state after a run
	unconverged     int // phases that did not converge within the attempt budget
	planDriftAfterA int // converged phases whose next plan was not empty
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// chaosFaults makes 20 % of control-plane and envd requests fail: 429 (with
// Retry-After), 500 or 503 responses, dropped connections, and creates that
// take effect before their connection drops.
func chaosFaults(seed int64) emulator.Faults {
	return emulator.Faults{
		ErrorRate:       0.15,
		Statuses:        []int{429, 500, 503},
		DropRate:        0.05,
		DropAfterCreate: 0.2,
		Seed:            seed,
	}
}

// TestChaosCycles runs apply → change → destroy cycles under injected faults
// and checks that no sandbox is orphaned, duplicated or dropped from state.
// The CI form is small; E2B_CHAOS_CYCLES=20 E2B_CHAOS_SANDBOXES=20 is the full run.
func TestChaosCycles(t *testing.T) {
	cycles := envInt("E2B_CHAOS_CYCLES", 2)
	n := envInt("E2B_CHAOS_SANDBOXES", 8)
	srv, ws := chaosWorkspace(t, cyclesConfig)
	ctx := context.Background()

	var fig figures
	planned := 0
	start := time.Now()
	for c := 0; c < cycles; c++ {
		for phase, gen := range []int{2 * c, 2*c + 1} {
			faults := chaosFaults(int64(100*c + 10*phase))
			args := []string{"-parallelism=10", "-var", fmt.Sprintf("n=%d", n), "-var", fmt.Sprintf("gen=%d", gen)}
			if phase == 0 {
				planned += n // the first apply of a cycle creates n sandboxes
			}
			converge(t, ctx, ws, srv, faults, &fig, "apply", args)
		}
		args := []string{"-parallelism=10", "-var", fmt.Sprintf("n=%d", n), "-var", "gen=0"}
		converge(t, ctx, ws, srv, chaosFaults(int64(100*c+20)), &fig, "destroy", args)
		fig.orphans += len(srv.SandboxIDs())
		for _, id := range srv.SandboxIDs() {
			t.Errorf("cycle %d: sandbox %s left behind after destroy", c, id)
		}
	}
	counters := srv.Counters()
	created := counters.SandboxesCreated
	fig.duplicates = created - planned
	requests := 0
	for _, n := range counters.Requests {
		requests += n
	}

	t.Logf("chaos: %d cycles × %d sandboxes (+%d files, +%d commands) in %s", cycles, n, n, n, time.Since(start).Round(time.Second))
	t.Logf("chaos: %d requests, %d of them failed or dropped by injected faults", requests, counters.FaultsInjected)
	if counters.FaultsInjected == 0 {
		t.Fatal("no fault was injected: the run proves nothing")
	}
	t.Logf("chaos: failed applies/destroys %d (each converged on a later run), orphans %d, duplicates %d (created %d, planned %d), dropped from state while alive %d, unconverged phases %d, non-empty plans after convergence %d",
		fig.appliesFailed, fig.orphans, fig.duplicates, created, planned, fig.droppedOrLost, fig.unconverged, fig.planDriftAfterA)
	if fig.orphans != 0 || fig.duplicates != 0 || fig.droppedOrLost != 0 || fig.unconverged != 0 || fig.planDriftAfterA != 0 {
		t.Fatalf("chaos targets missed: %+v", fig)
	}
}

// converge runs apply or destroy until it succeeds (at most 6 runs), checking
// after every run that each live sandbox is tracked in state.
// Faults are in force only while the CLI runs; the bookkeeping reads in
// between see the emulator as it is.
func converge(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server, faults emulator.Faults, fig *figures, verb string, args []string) {
	t.Helper()
	for attempt := 1; attempt <= 6; attempt++ {
		r := runUnderFaults(ctx, ws, srv, faults, attempt, verb, args)
		fig.droppedOrLost += untracked(t, ctx, ws, srv)
		if r.Err == nil {
			if verb == "apply" && !planIsEmpty(t, ctx, ws, args) {
				fig.planDriftAfterA++
			}
			return
		}
		fig.appliesFailed++
		t.Logf("%s run %d failed (a later run must converge): %s", verb, attempt, lastError(r.Output()))
	}
	fig.unconverged++
	t.Errorf("%s did not converge in 6 runs", verb)
}

// untracked counts sandboxes alive on the emulator that state does not know:
// each is a billed sandbox nobody would ever delete.
func untracked(t *testing.T, ctx context.Context, ws *harness.Workspace, srv *emulator.Server) int {
	t.Helper()
	inState := map[string]bool{}
	for _, id := range ws.SandboxIDsInState(ctx) {
		inState[id] = true
	}
	var lost []string
	for _, id := range srv.SandboxIDs() {
		if !inState[id] {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	for _, id := range lost {
		t.Errorf("sandbox %s is alive but not in state", id)
	}
	return len(lost)
}

func planIsEmpty(t *testing.T, ctx context.Context, ws *harness.Workspace, args []string) bool {
	t.Helper()
	r := ws.Run(ctx, append([]string{"plan", "-detailed-exitcode", "-no-color", "-input=false"}, args...)...)
	if r.Err == nil {
		return true
	}
	t.Errorf("plan after a converged apply is not empty:\n%s", r.Output())
	return false
}

// diagnosticHeading is where OpenTofu starts an error block.
var diagnosticHeading = regexp.MustCompile(`(?m)^\s*Error: `)

// lastError trims CLI output to its last error block, for the log.
func lastError(out string) string {
	if locs := diagnosticHeading.FindAllStringIndex(out, -1); len(locs) > 0 {
		out = out[locs[len(locs)-1][0]:]
	}
	if len(out) > 600 {
		out = out[:600] + "…"
	}
	return strings.TrimSpace(out)
}

func startEmulator(t *testing.T) *emulator.Server {
	t.Helper()
	srv, err := emulator.Start(emulator.Options{Limits: chaosLimits(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// runUnderFaults runs apply or destroy with faults in force only while the CLI runs; each
// attempt draws anew, reproducibly from the faults' seed.
func runUnderFaults(ctx context.Context, ws *harness.Workspace, srv *emulator.Server, faults emulator.Faults, attempt int, verb string, args []string) harness.Result {
	faults.Seed += int64(attempt)
	srv.SetFaults(faults)
	defer srv.SetFaults(emulator.Faults{})
	if verb == "destroy" {
		return ws.Destroy(ctx, args...)
	}
	return ws.Apply(ctx, args...)
}

// chaosWorkspace starts an emulator with the suite's limits and a workspace bound to it whose
// main.tf is config.
func chaosWorkspace(t *testing.T, config string) (*emulator.Server, *harness.Workspace) {
	t.Helper()
	srv := startEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	ws.Write("main.tf", config)
	return srv, ws
}

// retryingHeader names the provider and lets it retry fast, as a chaos run needs.
const retryingHeader = harness.RequiredProviders + `
provider "e2b" {
  max_retries    = 10
  retry_wait_min = "50ms"
  retry_wait_max = "1s"
}
`
