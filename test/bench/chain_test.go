package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The measured graph: chains of sandbox → file → command, applied at
// -parallelism=10, so each layer takes chains/parallelism rounds.
const (
	chains      = 50
	parallelism = "-parallelism=10"
	rounds      = chains / 10
	resources   = 3 * chains
)

// The least each chain can cost in requests: an apply creates the sandbox,
// uploads the file and starts the command; a plan reads the sandbox and stats
// the file; a destroy refreshes both (a read and a stat), removes the file and
// kills the sandbox. A command's record needs no request to refresh or forget.
const (
	floorApply   = 3
	floorPlan    = 2
	floorDestroy = 4
)

// chainConfig is n sandboxes, each with a file and, withCommands, a command
// that runs again when the file changes.
func chainConfig(n int, withCommands bool) string {
	return sandboxFileConfig(n, "/home/user/data.txt", withCommands)
}

// sandboxFileConfig is n sandboxes, each with a file at path and,
// withCommands, a command that reads it and runs again when it changes.
func sandboxFileConfig(n int, path string, withCommands bool) string {
	cfg := header + fmt.Sprintf(`
resource "e2b_sandbox" "s" {
  count   = %[1]d
  timeout = "1h"
}

resource "e2b_sandbox_file" "f" {
  count      = %[1]d
  sandbox_id = e2b_sandbox.s[count.index].id
  path       = %[2]q
  content    = "sandbox ${count.index}\n"
}
`, n, path)
	if withCommands {
		cfg += fmt.Sprintf(`
resource "e2b_sandbox_command" "c" {
  count      = %[1]d
  sandbox_id = e2b_sandbox.s[count.index].id
  command    = "cat %[2]s"
  triggers   = { file = e2b_sandbox_file.f[count.index].sha256 }
}
`, n, path)
	}
	return cfg
}

// timeConfig is the same graph as time_static resources chained by triggers,
// with the same references (each command refers to its sandbox and its file,
// and every reference makes the CLI decode the whole resource it names): a
// framework provider that makes no API calls.
var timeConfig = fmt.Sprintf(`
terraform {
  required_providers {
    time = { source = %[2]q }
  }
}

resource "time_static" "s" {
  count = %[1]d
}

resource "time_static" "f" {
  count    = %[1]d
  triggers = { s = time_static.s[count.index].id }
}

resource "time_static" "c" {
  count    = %[1]d
  triggers = { s = time_static.s[count.index].id, f = time_static.f[count.index].id }
}
`, chains, timeProviderAddress)

// dataConfig is the same graph with terraform_data, built into the CLI: the
// CLI's own time for the graph, with no provider process at all.
var dataConfig = fmt.Sprintf(`
resource "terraform_data" "s" {
  count = %[1]d
}

resource "terraform_data" "f" {
  count = %[1]d
  input = terraform_data.s[count.index].id
}

resource "terraform_data" "c" {
  count = %[1]d
  input = [terraform_data.s[count.index].id, terraform_data.f[count.index].id]
}
`, chains)

// measure is one CLI run: wall time, CPU of the CLI with its providers, and
// of the provider processes alone.
type measure struct {
	wall, cpu, provCPU time.Duration
	procs              int
}

func (m measure) cliCPU() time.Duration { return m.cpu - m.provCPU }

// phases is an apply, a plan with nothing to change and a destroy of one graph.
type phases struct {
	apply, plan, destroy          measure
	applyReq, planReq, destroyReq map[string]int
}

// runPhases applies, plans and destroys the workspace's graph; srv (may be
// nil) counts the requests of each phase, prov (may be nil) the provider CPU.
func runPhases(b *testing.B, ws *harness.Workspace, srv *emulator.Server, prov *wrappedProvider) phases {
	b.Helper()
	ctx := context.Background()
	var p phases
	one := func(what string, args ...string) (measure, map[string]int) {
		if srv != nil {
			srv.ResetCounters()
		}
		r := ws.Run(ctx, append(args, "-no-color", "-input=false", parallelism)...)
		if r.Err != nil {
			b.Fatalf("%s: %v\n%s", what, r.Err, r.Output())
		}
		m := measure{wall: r.Elapsed, cpu: r.CPU}
		if prov != nil {
			m.procs, m.provCPU = prov.Take(b)
		}
		var reqs map[string]int
		if srv != nil {
			reqs = srv.Counters().Requests
		}
		return m, reqs
	}
	p.apply, p.applyReq = one("apply", "apply", "-auto-approve")
	p.plan, p.planReq = one("plan", "plan", "-detailed-exitcode")
	p.destroy, p.destroyReq = one("destroy", "destroy", "-auto-approve")
	return p
}

func perChain(m map[string]int) float64 {
	return float64(sum(m, func(string) bool { return true })) / chains
}

// benchRounds is how many times each graph runs (E2B_BENCH_ROUNDS, default 3), the anchors
// and the e2b graph in turn, so that a shared machine's load falls on all of them alike.
var benchRounds = func() int {
	if n, err := strconv.Atoi(os.Getenv("E2B_BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}()

// e2bProviderBinary is the provider measured: the working tree's, or the binary named by
// E2B_BENCH_PROVIDER (to measure an older build under the same conditions).
func e2bProviderBinary(tb testing.TB) string {
	if p := os.Getenv("E2B_BENCH_PROVIDER"); p != "" {
		return p
	}
	return filepath.Join(harness.ProviderDir(tb), "terraform-provider-e2b")
}

// BenchmarkApplyDestroy50 applies, plans and destroys 50 chains of sandbox → file → command at
// -parallelism=10 against the emulator with latency added to every request, in turn with the
// same graph as time_static resources (HashiCorp's time provider) and as terraform_data, all
// run by the same CLI, benchRounds times. It reports requests per chain, the ratio of each wall
// time to the anchor's plus the latency floor (the least requests per chain × rounds ×
// latency), and the CPU of the CLI, of the provider processes and of the emulator. The no-op
// twin (the e2b schemas, no work) and a run without latency show where the time goes.
func BenchmarkApplyDestroy50(b *testing.B) {
	timeProv := wrapProvider(b, timeProviderBinary(b), "time")
	e2bProv := wrapProvider(b, e2bProviderBinary(b), "e2b")
	// The no-op twin serves the same schemas and calls nothing: the CLI's own
	// cost for objects of these sizes.
	noopProv := wrapProvider(b, harness.BuildProvider(b, "./test/bench/noopprovider")+"/terraform-provider-e2b", "e2b")

	timeWS := harness.NewWorkspaceOverriding(b, nil, map[string]string{timeProviderAddress: timeProv.Dir})
	timeWS.Write("main.tf", timeConfig)
	dataWS := harness.NewWorkspaceWith(b, nil, harness.ProviderDir(b))
	dataWS.Write("main.tf", dataConfig)
	noopWS := harness.NewWorkspaceWith(b, nil, noopProv.Dir)
	noopWS.Write("main.tf", chainConfig(chains, true))
	applyFloor := time.Duration(rounds*floorApply) * latency
	destroyFloor := time.Duration(rounds*floorDestroy) * latency

	for i := 0; i < b.N; i++ {
		noop := runPhases(b, noopWS, nil, noopProv)
		e0, _ := e2bPhases(b, newE2BWorkspace(b, e2bProv, 0), e2bProv)
		latWS := newE2BWorkspace(b, e2bProv, latency)
		var data, tm, e []phases
		var emuCPU time.Duration
		for range benchRounds {
			data = append(data, runPhases(b, dataWS, nil, nil))
			tm = append(tm, runPhases(b, timeWS, nil, timeProv))
			p, cpu := e2bPhases(b, latWS, e2bProv)
			e, emuCPU = append(e, p), emuCPU+cpu
		}

		var s stats
		for r := range benchRounds {
			s.add("apply/time+floor", ratio(e[r].apply.wall, tm[r].apply.wall+applyFloor))
			s.add("destroy/time+floor", ratio(e[r].destroy.wall, tm[r].destroy.wall+destroyFloor))
			s.add("apply/data+floor", ratio(e[r].apply.wall, data[r].apply.wall+applyFloor))
			s.add("destroy/data+floor", ratio(e[r].destroy.wall, data[r].destroy.wall+destroyFloor))
			s.add("apply-prov-cpu-ms/res", perResource(e[r].apply.provCPU))
			s.add("destroy-prov-cpu-ms/res", perResource(e[r].destroy.provCPU))
			s.add("time-apply-prov-cpu-ms/res", perResource(tm[r].apply.provCPU))
			s.add("time-destroy-prov-cpu-ms/res", perResource(tm[r].destroy.provCPU))
		}
		last := e[len(e)-1]
		b.ReportMetric(perChain(last.applyReq), "apply-req/chain")
		b.ReportMetric(perChain(last.planReq), "plan-req/chain")
		b.ReportMetric(perChain(last.destroyReq), "destroy-req/chain")
		for _, name := range s.names {
			b.ReportMetric(s.median(name), name)
		}

		b.Logf("requests per chain at %s latency: apply %.2f, plan %.2f, destroy %.2f (floor %d, %d, %d)",
			latency, perChain(last.applyReq), perChain(last.planReq), perChain(last.destroyReq), floorApply, floorPlan, floorDestroy)
		for _, ph := range []struct {
			name string
			reqs map[string]int
		}{{"apply", last.applyReq}, {"plan", last.planReq}, {"destroy", last.destroyReq}} {
			b.Logf("  %s: %s", ph.name, describeRequests(ph.reqs))
		}
		b.Logf("latency floor at %s: apply %s, destroy %s", latency, applyFloor, destroyFloor)
		b.Logf("%-24s %30s %30s %30s", "wall (CPU: CLI + provider)", "apply", "plan", "destroy")
		row := func(name string, p phases) {
			cell := func(m measure) string {
				return fmt.Sprintf("%6.2fs (%5.2f + %5.2f in %d)", m.wall.Seconds(), m.cliCPU().Seconds(), m.provCPU.Seconds(), m.procs)
			}
			b.Logf("%-24s %30s %30s %30s", name, cell(p.apply), cell(p.plan), cell(p.destroy))
		}
		row("e2b no-op twin", noop)
		row("e2b, no latency", e0)
		for r := range benchRounds {
			row(fmt.Sprintf("%d: terraform_data", r+1), data[r])
			row(fmt.Sprintf("%d: time_static", r+1), tm[r])
			row(fmt.Sprintf("%d: e2b, %s", r+1, latency), e[r])
		}
		b.Logf("emulator and sandbox processes: %.2fs of CPU over the %d runs with latency", emuCPU.Seconds(), benchRounds)
		for _, name := range s.names {
			b.Logf("%-30s %s", name, s.describe(name))
		}
	}
}

// ratio is d over the anchor's time plus the floor.
func ratio(d, anchorPlusFloor time.Duration) float64 { return d.Seconds() / anchorPlusFloor.Seconds() }

// perResource is CPU in milliseconds per resource of the graph.
func perResource(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / resources }

// stats collects one value per round for each named figure.
type stats struct {
	names []string
	vals  map[string][]float64
}

func (s *stats) add(name string, v float64) {
	if s.vals == nil {
		s.vals = map[string][]float64{}
	}
	if _, ok := s.vals[name]; !ok {
		s.names = append(s.names, name)
	}
	s.vals[name] = append(s.vals[name], v)
}

func (s *stats) sorted(name string) []float64 {
	v := slices.Clone(s.vals[name])
	slices.Sort(v)
	return v
}

func (s *stats) median(name string) float64 {
	v := s.sorted(name)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// describe gives the median and the range.
func (s *stats) describe(name string) string {
	v := s.sorted(name)
	return fmt.Sprintf("median %.2f, range %.2f – %.2f (%d rounds)", s.median(name), v[0], v[len(v)-1], len(v))
}

// newE2BWorkspace is a workspace with the e2b graph against a fresh emulator that adds lat to
// every request.
func newE2BWorkspace(b *testing.B, prov *wrappedProvider, lat time.Duration) *harness.Workspace {
	b.Helper()
	srv := start(b)
	ws := harness.NewWorkspaceWith(b, srv, prov.Dir)
	ws.Write("main.tf", chainConfig(chains, true))
	srv.SetFaults(emulator.Faults{Latency: lat})
	return ws
}

// e2bPhases runs the e2b graph once and returns, besides, the CPU the emulator and the
// sandboxes' processes used meanwhile.
func e2bPhases(b *testing.B, ws *harness.Workspace, prov *wrappedProvider) (phases, time.Duration) {
	b.Helper()
	self0, children0 := cpuNow()
	p := runPhases(b, ws, ws.Emulator, prov)
	self1, children1 := cpuNow()
	return p, self1 - self0 + children1 - children0 - (p.apply.cpu + p.plan.cpu + p.destroy.cpu)
}

// cpuNow returns the CPU time used so far by this process (the emulator) and by its children
// that ended (the CLI runs with their providers, and the sandboxes' processes).
func cpuNow() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}

// describeRequests lists the requests per chain by route, sorted by route.
func describeRequests(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f", k, float64(m[k])/chains)
	}
	return strings.Join(parts, ", ")
}
