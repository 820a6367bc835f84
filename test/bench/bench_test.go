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
// apply, a 256 MiB source file (into a sandbox, and into a volume), and a
// command that prints 100 MiB.
func BenchmarkProviderMemory(b *testing.B) {
	srv := start(b)
	big := filepath.Join(b.TempDir(), "big.bin")
	harness.WriteRandomFile(b, big, 256<<20, 1)
	cases := []memoryCase{
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
		{"volume-upload-256MiB", fmt.Sprintf(`
resource "e2b_volume" "v" {
  name = "bench-volume"
}
resource "e2b_volume_file" "f" {
  volume_id = e2b_volume.v.id
  path      = "/models/big.bin"
  source    = %q
}`, big)},
		{"command-100MiB", `
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_command" "c" {
  sandbox_id = e2b_sandbox.s.id
  command    = "head -c 104857600 /dev/zero | tr '\\0' 'x' | fold -w 100"
  timeout    = "10m"
}`},
	}
	measurePeakRSS(b, srv, cases, nil)
}

// memoryCase is one configuration (without the terraform block) that a memory
// benchmark applies.
type memoryCase struct{ name, config string }

// measurePeakRSS applies and destroys each case b.N times, each in a fresh
// workspace, watching the provider process's RSS during the apply; it reports
// each case's peak and, after the first case (the baseline), its growth over
// the baseline. afterApply, when set, runs while the case is still applied,
// with the emulator counting requests since the apply began; elapsed is the
// apply's time.
func measurePeakRSS(b *testing.B, srv *emulator.Server, cases []memoryCase, afterApply func(ws *harness.Workspace, name string, elapsed time.Duration)) {
	b.Helper()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		var baseline int64
		for n, c := range cases {
			ws := harness.NewWorkspace(b, srv)
			ws.Write("main.tf", header+c.config)
			srv.ResetCounters()
			watch := harness.WatchPeakRSS(harness.ProviderDir(b))
			elapsed := run(b, ws.Apply(ctx), c.name+" apply")
			peak := watch.Stop()
			if afterApply != nil {
				afterApply(ws, c.name, elapsed)
			}
			run(b, ws.Destroy(ctx), c.name+" destroy")
			b.ReportMetric(float64(peak)/(1<<20), c.name+"-peak-MiB")
			if n == 0 {
				baseline = peak
			} else {
				b.ReportMetric(float64(peak-baseline)/(1<<20), c.name+"-growth-MiB")
			}
		}
	}
}

// BenchmarkProviderOutputLimitMemory: peak RSS of the provider for a command printing 100 MiB
// with max_output_bytes = 16 MiB, against a tiny apply: the provider keeps one ring of the
// limit per stream, so its growth stays a small multiple of the 16 MiB it keeps (the state
// that carries the tail is converted a few times on its way to Terraform).
func BenchmarkProviderOutputLimitMemory(b *testing.B) {
	srv := start(b)
	measurePeakRSS(b, srv, []memoryCase{
		{"baseline", `
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_command" "c" {
  sandbox_id = e2b_sandbox.s.id
  command    = "echo small"
}`},
		{"command-100MiB-limit-16MiB", `
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_command" "c" {
  sandbox_id       = e2b_sandbox.s.id
  command          = "head -c 104857600 /dev/zero | tr '\\0' 'x' | fold -w 100"
  max_output_bytes = 16777216
  timeout          = "10m"
}`},
	}, nil)
}
