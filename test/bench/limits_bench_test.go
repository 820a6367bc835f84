package bench

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// plans are E2B's limits per plan, as the emulator models them.
var plans = map[string]emulator.Limits{
	"pro":   {CreateRate: 5, MaxConcurrentSandboxes: 100},
	"hobby": {CreateRate: 1, MaxConcurrentSandboxes: 20},
}

// limitOutcome is what one apply under limits left behind.
type limitOutcome struct {
	failed, inState, alive, made int
	refusedRate, refusedCap      int
	// firstCreate and lastCreate are when the first and the last sandbox
	// started (their started_at), counted from the start of the apply.
	firstCreate, lastCreate time.Duration
	gaps                    string // seconds between consecutive starts
}

func outcome(ctx context.Context, srv *emulator.Server, ws *harness.Workspace, r harness.Result, began time.Time) (o limitOutcome) {
	o = limitOutcome{
		failed: len(regexp.MustCompile(`(?m)^Error: `).FindAllString(r.Output(), -1)),
		alive:  len(srv.SandboxIDs()), made: srv.Counters().SandboxesCreated,
		refusedRate: srv.LimitRefusals().CreateRate, refusedCap: srv.LimitRefusals().SandboxLimit,
	}
	var first, last time.Time
	var starts []time.Time
	defer func() {
		sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
		var gaps []string
		for i := 1; i < len(starts); i++ {
			gaps = append(gaps, fmt.Sprintf("%.2f", starts[i].Sub(starts[i-1]).Seconds()))
		}
		o.gaps = strings.Join(gaps, " ")
	}()
	for _, res := range ws.State(ctx) {
		if res.Type != "e2b_sandbox" {
			continue
		}
		o.inState++
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(res.Values["started_at"]))
		if err != nil {
			continue
		}
		starts = append(starts, at)
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	if !first.IsZero() {
		o.firstCreate, o.lastCreate = first.Sub(began), last.Sub(began)
	}
	return o
}

// limitsConfig is n sandboxes, each with a file and a command that reads it (relative paths:
// the light emulator's commands see the sandbox's home as their working directory).
func limitsConfig(n int) string { return sandboxFileConfig(n, "data.txt", true) }

// startLight starts an emulator whose sandboxes share the host's layout (no namespaces or
// overlays): what is measured here is the pacing, not the cost of making a sandbox.
func startLight(b *testing.B) *emulator.Server {
	b.Helper()
	srv, err := emulator.Start(emulator.Options{Isolation: "none"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	return srv
}

// applyOnce applies config at -parallelism=p against a fresh emulator with limits (and the
// benchmarks' latency), and destroys it again without them.
func applyOnce(b *testing.B, limits emulator.Limits, config string, p int) (harness.Result, limitOutcome) {
	b.Helper()
	ctx := context.Background()
	srv := startLight(b)
	srv.SetLimits(limits)
	srv.SetFaults(emulator.Faults{Latency: latency})
	ws := harness.NewWorkspace(b, srv)
	ws.Write("main.tf", config)
	began := time.Now()
	r := ws.Apply(ctx, fmt.Sprintf("-parallelism=%d", p))
	o := outcome(ctx, srv, ws, r, began)
	srv.SetLimits(emulator.Limits{})
	srv.SetFaults(emulator.Faults{})
	run(b, ws.Destroy(ctx, "-parallelism=30"), "destroy")
	return r, o
}

// BenchmarkApplyWithinPlanLimits applies N sandboxes, each with a file and a command, against
// the emulator with a plan's limits at -parallelism 10 and 30, and prints the apply time next to
// the floor the create rate sets (N / rate) and to the same apply without limits (what the
// machine itself takes), the failed resources, the orphans (sandboxes E2B runs that the state
// does not hold) and the duplicates (sandboxes made beyond N).
func BenchmarkApplyWithinPlanLimits(b *testing.B) {
	for _, c := range []struct {
		plan string
		n    int
	}{{"pro", 100}, {"hobby", 20}} {
		for _, p := range []int{10, 30} {
			b.Run(fmt.Sprintf("plan=%s/N=%d/parallelism=%d", c.plan, c.n, p), func(b *testing.B) {
				limits := plans[c.plan]
				floor := time.Duration(float64(c.n) / limits.CreateRate * float64(time.Second))
				for i := 0; i < b.N; i++ {
					base, _ := applyOnce(b, emulator.Limits{}, limitsConfig(c.n), p)
					r, o := applyOnce(b, limits, limitsConfig(c.n), p)
					bound := max(floor, base.Elapsed)
					b.ReportMetric(r.Elapsed.Seconds(), "apply-s")
					b.ReportMetric(floor.Seconds(), "floor-s")
					b.ReportMetric(base.Elapsed.Seconds(), "unlimited-s")
					b.ReportMetric(r.Elapsed.Seconds()/floor.Seconds(), "x-floor")
					b.ReportMetric(r.Elapsed.Seconds()/bound.Seconds(), "x-max(floor,unlimited)")
					span := o.lastCreate - o.firstCreate
					spanFloor := time.Duration(float64(c.n-1) / limits.CreateRate * float64(time.Second))
					b.ReportMetric(span.Seconds(), "create-span-s")
					b.ReportMetric(span.Seconds()/spanFloor.Seconds(), "x-create-floor")
					b.ReportMetric(float64(o.failed), "failed")
					b.ReportMetric(float64(o.alive-o.inState), "orphans")
					b.ReportMetric(float64(o.made-c.n), "duplicates")
					b.ReportMetric(float64(o.refusedRate), "429-rate")
					b.Logf("%s, %d sandboxes, -parallelism=%d: apply %s (floor %s: %.2fx; without limits %s: %.2fx of the larger), "+
						"sandboxes started from %.1fs to %.1fs into the apply (%.2fx the %s the rate allows between the first and the last), "+
						"%d failed, %d in state, %d running, %d made, %d creates refused for the rate",
						c.plan, c.n, p, r.Elapsed.Round(10*time.Millisecond), floor, r.Elapsed.Seconds()/floor.Seconds(),
						base.Elapsed.Round(10*time.Millisecond), r.Elapsed.Seconds()/bound.Seconds(),
						o.firstCreate.Seconds(), o.lastCreate.Seconds(), span.Seconds()/spanFloor.Seconds(), spanFloor,
						o.failed, o.inState, o.alive, o.made, o.refusedRate)
					b.Logf("seconds between sandbox starts: %s", o.gaps)
					if r.Err != nil {
						b.Logf("apply failed: %v\n%s", r.Err, lastLines(r.Output(), 30))
					}
				}
			})
		}
	}
}

// BenchmarkApplyOverTheSandboxLimit applies 21 sandboxes against Hobby's 20 and prints what
// the refused one said and what it left: 20 in state and none outside it.
func BenchmarkApplyOverTheSandboxLimit(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r, o := applyOnce(b, plans["hobby"], header+`
resource "e2b_sandbox" "s" {
  count   = 21
  timeout = "1h"
}
`, 10)
		b.ReportMetric(r.Elapsed.Seconds(), "apply-s")
		b.ReportMetric(float64(o.failed), "failed")
		b.ReportMetric(float64(o.inState), "in-state")
		b.ReportMetric(float64(o.alive-o.inState), "orphans")
		b.ReportMetric(float64(o.made-o.inState), "duplicates")
		said := regexp.MustCompile(`\s+`).ReplaceAllString(lastLines(r.Output(), 25), " ")
		b.Logf("21 sandboxes against 20: apply %s, exit %v, %d failed, %d in state, %d running, %d made, %d refused at the cap",
			r.Elapsed.Round(10*time.Millisecond), r.Err, o.failed, o.inState, o.alive, o.made, o.refusedCap)
		b.Logf("the refusal: %s", said)
		if r.Err == nil || !strings.Contains(said, "maximum number of concurrent E2B sandboxes (20)") {
			b.Errorf("the 21st sandbox was not refused with the cap's message")
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
