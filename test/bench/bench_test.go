// Package bench measures the provider end to end: a real OpenTofu CLI, the
// provider binary in its own process, the emulator with injected latency.
// Run with scripts/bench.sh (go test -bench, one iteration each); figures are
// reported as benchmark metrics and never asserted.
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// latency is added to every request; E2B_BENCH_LATENCY overrides it (for
// example "0s" to see the provider's and emulator's own share).
var latency = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("E2B_BENCH_LATENCY")); err == nil {
		return d
	}
	return 50 * time.Millisecond
}()

const header = `
terraform {
  required_providers {
    e2b = { source = "e2b-terraform/e2b" }
  }
}
`

// chainConfig is n sandboxes, each with a file and a command after it.
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

// dataConfig has the same graph with terraform_data, whose objects are tiny:
// the CLI's time for the graph alone.
const dataConfig = `
resource "terraform_data" "s" {
  count = 50
}
resource "terraform_data" "f" {
  count = 50
  input = terraform_data.s[count.index].id
}
resource "terraform_data" "c" {
  count = 50
  input = terraform_data.f[count.index].id
}
`

func start(b *testing.B) *emulator.Server {
	b.Helper()
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	return srv
}

func run(b *testing.B, r harness.Result, what string) time.Duration {
	b.Helper()
	if r.Err != nil {
		b.Fatalf("%s: %v\n%s", what, r.Err, r.Output())
	}
	return r.Elapsed
}

func sum(m map[string]int, pred func(string) bool) int {
	n := 0
	for k, v := range m {
		if pred(k) {
			n += v
		}
	}
	return n
}

// BenchmarkApplyDestroy50 applies and destroys 50 sandboxes, 50 files and 50
// commands at -parallelism=10, once with no added latency and once with
// latency added to every request, and compares the wall time with the lower
// bound: the CLI's own time for the same graph plus rounds × requests per
// resource × latency.
func BenchmarkApplyDestroy50(b *testing.B) {
	ctx := context.Background()
	// The no-op twin serves the same schemas and calls nothing: its run is
	// the CLI's own time for this graph with these object sizes.
	noop := harness.NewWorkspaceWith(b, nil, harness.BuildProvider(b, "./test/bench/noopprovider"))
	noop.Write("main.tf", chainConfig(50, true))
	data := harness.NewWorkspaceWith(b, nil, harness.ProviderDir(b))
	data.Write("main.tf", dataConfig)
	for i := 0; i < b.N; i++ {
		noopApply := run(b, noop.Apply(ctx, "-parallelism=10"), "no-op apply")
		noopDestroy := run(b, noop.Destroy(ctx, "-parallelism=10"), "no-op destroy")
		dataApply := run(b, data.Apply(ctx, "-parallelism=10"), "terraform_data apply")
		dataDestroy := run(b, data.Destroy(ctx, "-parallelism=10"), "terraform_data destroy")
		self0, children0 := cpuNow()
		provCPU := watchCPU(harness.ProviderDir(b))
		apply0, destroy0, _, _ := applyDestroy(b, 0)
		self1, children1 := cpuNow()
		emulatorCPU, childrenCPU, providerCPU := self1-self0, children1-children0, provCPU.Stop()
		apply, destroy, applyReqs, destroyReqs := applyDestroy(b, latency)

		// Three dependent layers of 50 at parallelism 10: 5 rounds each. The
		// least an apply can send is one request per resource; a destroy
		// refreshes (one read) and deletes (one call) sandboxes and files and
		// sends nothing for commands.
		const rounds = 5
		applyBound := noopApply + time.Duration(rounds*(1+1+1))*latency
		destroyBound := noopDestroy + time.Duration(rounds*(2+2+0))*latency
		// What this provider sends per chain (sandbox, file, command), which
		// the latency must pay for in sequence.
		chain := func(m map[string]int) float64 { return float64(sum(m, func(string) bool { return true })) / 50 }
		applyLatencyBound := time.Duration(float64(rounds) * chain(applyReqs) * float64(latency))
		destroyLatencyBound := time.Duration(float64(rounds) * chain(destroyReqs) * float64(latency))

		b.ReportMetric(apply.Seconds(), "apply-s")
		b.ReportMetric(apply.Seconds()/applyBound.Seconds(), "apply-ratio")
		b.ReportMetric((apply-apply0).Seconds()/applyLatencyBound.Seconds(), "apply-latency-ratio")
		b.ReportMetric(destroy.Seconds(), "destroy-s")
		b.ReportMetric(destroy.Seconds()/destroyBound.Seconds(), "destroy-ratio")
		b.ReportMetric((destroy-destroy0).Seconds()/destroyLatencyBound.Seconds(), "destroy-latency-ratio")
		b.ReportMetric(chain(applyReqs)/3, "apply-req/resource")
		b.ReportMetric(chain(destroyReqs)/3, "destroy-req/resource")
		b.Logf("CLI alone, same graph: no-op provider apply %s, destroy %s; terraform_data apply %s, destroy %s",
			noopApply.Round(time.Millisecond), noopDestroy.Round(time.Millisecond),
			dataApply.Round(time.Millisecond), dataDestroy.Round(time.Millisecond))
		b.Logf("without latency: apply %s, destroy %s; with %s: apply %s (bound %s), destroy %s (bound %s)",
			apply0.Round(time.Millisecond), destroy0.Round(time.Millisecond), latency,
			apply.Round(time.Millisecond), applyBound.Round(time.Millisecond), destroy.Round(time.Millisecond), destroyBound.Round(time.Millisecond))
		b.Logf("CPU during the run without latency, %s of wall time on %d cores: emulator %s; CLI, provider and sandbox shells %s, of which the provider %s",
			(apply0 + destroy0).Round(time.Millisecond), runtime.NumCPU(), emulatorCPU.Round(time.Millisecond),
			childrenCPU.Round(time.Millisecond), providerCPU.Round(time.Millisecond))
		b.Logf("latency share: apply %s for %s of sequential requests, destroy %s for %s",
			(apply - apply0).Round(time.Millisecond), applyLatencyBound, (destroy - destroy0).Round(time.Millisecond), destroyLatencyBound)
		b.Logf("apply requests: %v", applyReqs)
		b.Logf("destroy requests: %v", destroyReqs)
	}
}

// applyDestroy runs one apply and one destroy of the 50-chain graph against
// a fresh emulator that adds lat to every request.
func applyDestroy(b *testing.B, lat time.Duration) (apply, destroy time.Duration, applyReqs, destroyReqs map[string]int) {
	ctx := context.Background()
	srv := start(b)
	ws := harness.NewWorkspace(b, srv)
	ws.Write("main.tf", chainConfig(50, true))
	srv.SetFaults(emulator.Faults{Latency: lat})
	apply = run(b, ws.Apply(ctx, "-parallelism=10"), "apply")
	applyReqs = srv.Counters().Requests
	srv.ResetCounters()
	destroy = run(b, ws.Destroy(ctx, "-parallelism=10"), "destroy")
	destroyReqs = srv.Counters().Requests
	return apply, destroy, applyReqs, destroyReqs
}

// BenchmarkPlanUnchanged plans N unchanged sandboxes (each with one file) with
// 50 ms latency: how many requests each resource costs and how time grows.
func BenchmarkPlanUnchanged(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ctx := context.Background()
			srv := start(b)
			ws := harness.NewWorkspace(b, srv)
			ws.Write("main.tf", chainConfig(n, false))
			run(b, ws.Apply(ctx, "-parallelism=20"), "apply")
			for i := 0; i < b.N; i++ {
				srv.ResetCounters()
				srv.SetFaults(emulator.Faults{Latency: latency})
				plan := run(b, ws.Run(ctx, "plan", "-detailed-exitcode", "-no-color", "-input=false"), "plan")
				srv.SetFaults(emulator.Faults{})
				reqs := srv.Counters().Requests
				gets := reqs["GET /sandboxes/{id}"]
				control := sum(reqs, func(k string) bool { return !strings.HasPrefix(k, "envd ") })
				envd := sum(reqs, func(k string) bool { return strings.HasPrefix(k, "envd ") })
				b.ReportMetric(plan.Seconds(), "plan-s")
				b.ReportMetric(plan.Seconds()/float64(n)*1000, "ms/sandbox")
				b.ReportMetric(float64(gets)/float64(n), "GET/sandbox")
				b.ReportMetric(float64(control)/float64(n), "control-req/sandbox")
				b.ReportMetric(float64(envd)/float64(n), "envd-req/file")
				b.Logf("N=%d requests: %v", n, reqs)
			}
			b.StopTimer()
			run(b, ws.Destroy(ctx, "-parallelism=20"), "destroy")
		})
	}
}

// BenchmarkProviderMemory measures the provider process's peak RSS for a tiny
// apply, a 256 MiB source file, and a command that prints 100 MiB.
func BenchmarkProviderMemory(b *testing.B) {
	ctx := context.Background()
	srv := start(b)
	big := filepath.Join(b.TempDir(), "big.bin")
	writeRandomish(b, big, 256<<20)
	cases := []struct{ name, body string }{
		{"baseline", `
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_file" "f" {
  sandbox_id = e2b_sandbox.s.id
  path       = "small.txt"
  content    = "small"
}`},
		{"upload-256MiB", fmt.Sprintf(`
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_file" "f" {
  sandbox_id = e2b_sandbox.s.id
  path       = "big.bin"
  source     = %q
}`, big)},
		{"command-100MiB", `
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_command" "c" {
  sandbox_id = e2b_sandbox.s.id
  command    = "head -c 104857600 /dev/zero | tr '\\0' 'x' | fold -w 100"
  timeout    = "10m"
}`},
	}
	for i := 0; i < b.N; i++ {
		var baseline int64
		for _, c := range cases {
			ws := harness.NewWorkspace(b, srv)
			ws.Write("main.tf", header+c.body)
			watch := harness.WatchPeakRSS(harness.ProviderDir(b))
			run(b, ws.Apply(ctx), c.name+" apply")
			peak := watch.Stop()
			run(b, ws.Destroy(ctx), c.name+" destroy")
			if c.name == "baseline" {
				baseline = peak
			}
			b.ReportMetric(float64(peak)/(1<<20), c.name+"-peak-MiB")
			if c.name != "baseline" {
				b.ReportMetric(float64(peak-baseline)/(1<<20), c.name+"-growth-MiB")
			}
		}
	}
}

// writeRandomish writes size bytes that do not compress to nothing, without
// holding them in memory.
func writeRandomish(b *testing.B, path string, size int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	block := make([]byte, 1<<20)
	var x uint64 = 88172645463325252
	for written := 0; written < size; written += len(block) {
		for j := range block {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			block[j] = byte(x)
		}
		if _, err := f.Write(block); err != nil {
			b.Fatal(err)
		}
	}
}
