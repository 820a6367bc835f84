package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"
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
	cfg := header + fmt.Sprintf(`
resource "e2b_sandbox" "s" {
  count   = %[1]d
  timeout = "1h"
}

resource "e2b_sandbox_file" "f" {
  count      = %[1]d
  sandbox_id = e2b_sandbox.s[count.index].id
  path       = "/home/user/data.txt"
  content    = "sandbox ${count.index}\n"
}
`, n)
	if withCommands {
		cfg += fmt.Sprintf(`
resource "e2b_sandbox_command" "c" {
  count      = %[1]d
  sandbox_id = e2b_sandbox.s[count.index].id
  command    = "cat /home/user/data.txt"
  triggers   = { file = e2b_sandbox_file.f[count.index].sha256 }
}
`, n)
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

// BenchmarkApplyDestroy50 applies, plans and destroys 50 chains of sandbox →
// file → command at -parallelism=10 against the emulator, without latency and
// with latency added to every request, next to the same graph as time_static
// resources (HashiCorp's time provider) and as terraform_data, all run by the
// same CLI in the same run. It reports requests per chain, the ratio of each
// wall time to the anchor's plus the latency floor (the least requests per
// chain × rounds × latency), and CPU per resource of the provider processes.
func BenchmarkApplyDestroy50(b *testing.B) {
	timeProv := wrapProvider(b, timeProviderBinary(b), "time")
	e2bProv := wrapProvider(b, harness.ProviderDir(b)+"/terraform-provider-e2b", "e2b")
	// The no-op twin serves the same schemas and calls nothing: the CLI's own
	// cost for objects of these sizes.
	noopProv := wrapProvider(b, harness.BuildProvider(b, "./test/bench/noopprovider")+"/terraform-provider-e2b", "e2b")

	timeWS := harness.NewWorkspaceOverriding(b, nil, map[string]string{timeProviderAddress: timeProv.Dir})
	timeWS.Write("main.tf", timeConfig)
	dataWS := harness.NewWorkspaceWith(b, nil, harness.ProviderDir(b))
	dataWS.Write("main.tf", dataConfig)
	noopWS := harness.NewWorkspaceWith(b, nil, noopProv.Dir)
	noopWS.Write("main.tf", chainConfig(chains, true))

	for i := 0; i < b.N; i++ {
		data := runPhases(b, dataWS, nil, nil)
		tm := runPhases(b, timeWS, nil, timeProv)
		noop := runPhases(b, noopWS, nil, noopProv)
		e0 := e2bPhases(b, e2bProv, 0)
		e := e2bPhases(b, e2bProv, latency)

		applyFloor := time.Duration(rounds*floorApply) * latency
		destroyFloor := time.Duration(rounds*floorDestroy) * latency
		ratio := func(d, anchor, floor time.Duration) float64 { return d.Seconds() / (anchor + floor).Seconds() }
		perRes := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / resources }

		b.ReportMetric(perChain(e.applyReq), "apply-req/chain")
		b.ReportMetric(perChain(e.planReq), "plan-req/chain")
		b.ReportMetric(perChain(e.destroyReq), "destroy-req/chain")
		b.ReportMetric(e.apply.wall.Seconds(), "apply-s")
		b.ReportMetric(e.destroy.wall.Seconds(), "destroy-s")
		b.ReportMetric(ratio(e.apply.wall, tm.apply.wall, applyFloor), "apply/time+floor")
		b.ReportMetric(ratio(e.destroy.wall, tm.destroy.wall, destroyFloor), "destroy/time+floor")
		b.ReportMetric(ratio(e.apply.wall, data.apply.wall, applyFloor), "apply/data+floor")
		b.ReportMetric(ratio(e.destroy.wall, data.destroy.wall, destroyFloor), "destroy/data+floor")
		b.ReportMetric(perRes(e0.apply.provCPU), "apply-prov-cpu-ms/res")
		b.ReportMetric(perRes(e0.destroy.provCPU), "destroy-prov-cpu-ms/res")
		b.ReportMetric(perRes(tm.apply.provCPU), "time-apply-prov-cpu-ms/res")
		b.ReportMetric(perRes(tm.destroy.provCPU), "time-destroy-prov-cpu-ms/res")

		b.Logf("requests per chain at %s latency: apply %.2f, plan %.2f, destroy %.2f (floor %d, %d, %d)",
			latency, perChain(e.applyReq), perChain(e.planReq), perChain(e.destroyReq), floorApply, floorPlan, floorDestroy)
		for _, ph := range []struct {
			name string
			reqs map[string]int
		}{{"apply", e.applyReq}, {"plan", e.planReq}, {"destroy", e.destroyReq}} {
			b.Logf("  %s: %s", ph.name, describeRequests(ph.reqs))
		}
		b.Logf("latency floor at %s: apply %s, destroy %s", latency, applyFloor, destroyFloor)
		b.Logf("%-26s %28s %28s %28s", "wall (CPU: CLI + provider)", "apply", "plan", "destroy")
		row := func(name string, p phases) {
			cell := func(m measure) string {
				return fmt.Sprintf("%6.2fs (%5.2f + %5.2f in %d)", m.wall.Seconds(), m.cliCPU().Seconds(), m.provCPU.Seconds(), m.procs)
			}
			b.Logf("%-26s %28s %28s %28s", name, cell(p.apply), cell(p.plan), cell(p.destroy))
		}
		row("terraform_data", data)
		row("time_static", tm)
		row("e2b no-op twin", noop)
		row("e2b, no latency", e0)
		row(fmt.Sprintf("e2b, %s latency", latency), e)
		b.Logf("ratios at %s: apply %.2f× time_static+floor, %.2f× terraform_data+floor; destroy %.2f× time_static+floor, %.2f× terraform_data+floor",
			latency, ratio(e.apply.wall, tm.apply.wall, applyFloor), ratio(e.apply.wall, data.apply.wall, applyFloor),
			ratio(e.destroy.wall, tm.destroy.wall, destroyFloor), ratio(e.destroy.wall, data.destroy.wall, destroyFloor))
		b.Logf("provider CPU per resource (ms): e2b apply %.2f / %.2f, destroy %.2f / %.2f (no latency / %s); time_static apply %.2f, destroy %.2f; no-op twin apply %.2f, destroy %.2f",
			perRes(e0.apply.provCPU), perRes(e.apply.provCPU), perRes(e0.destroy.provCPU), perRes(e.destroy.provCPU), latency,
			perRes(tm.apply.provCPU), perRes(tm.destroy.provCPU), perRes(noop.apply.provCPU), perRes(noop.destroy.provCPU))
	}
}

// e2bPhases runs the e2b graph against a fresh emulator adding lat to every
// request.
func e2bPhases(b *testing.B, prov *wrappedProvider, lat time.Duration) phases {
	b.Helper()
	srv := start(b)
	ws := harness.NewWorkspaceWith(b, srv, prov.Dir)
	ws.Write("main.tf", chainConfig(chains, true))
	srv.SetFaults(emulator.Faults{Latency: lat})
	return runPhases(b, ws, srv, prov)
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
