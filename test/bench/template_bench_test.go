package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// BenchmarkProviderTemplateMemory measures the provider process's peak RSS
// while it builds an e2b_template whose COPY step sends a small context and a
// 1 GiB one (16 files of 64 MiB that do not compress): the plan hashes the
// context, the apply hashes, archives and uploads it. It also counts the
// template requests of each apply.
func BenchmarkProviderTemplateMemory(b *testing.B) {
	ctx := context.Background()
	srv := start(b)
	small, big := b.TempDir(), b.TempDir()
	for _, d := range []string{small, big} {
		if err := os.MkdirAll(filepath.Join(d, "data"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	writeRandomish(b, filepath.Join(small, "data", "small.bin"), 1<<20)
	for i := 0; i < 16; i++ {
		writeRandomish(b, filepath.Join(big, "data", fmt.Sprintf("part-%02d.bin", i)), 64<<20)
	}
	config := func(name, dir string) string {
		return header + fmt.Sprintf(`
resource "e2b_template" "t" {
  name          = %q
  from_template = "base"
  context       = %q
  steps = [
    { copy = { src = "data", dest = "/home/user/data" } },
    { run = { command = "du -sh /home/user/data" } },
  ]
}
`, name, dir)
	}
	cases := []struct{ name, dir string }{{"baseline-1MiB", small}, {"context-1GiB", big}}
	for i := 0; i < b.N; i++ {
		var baseline int64
		for _, c := range cases {
			ws := harness.NewWorkspace(b, srv)
			ws.Write("main.tf", config(strings.ToLower(c.name), c.dir))
			srv.ResetCounters()
			watch := harness.WatchPeakRSS(harness.ProviderDir(b))
			run(b, ws.Apply(ctx), c.name+" apply")
			peak := watch.Stop()
			reqs := srv.Counters().Requests
			run(b, ws.Destroy(ctx), c.name+" destroy")
			if baseline == 0 {
				baseline = peak
			}
			b.ReportMetric(float64(peak)/(1<<20), c.name+"-peak-MiB")
			if c.name != cases[0].name {
				b.ReportMetric(float64(peak-baseline)/(1<<20), c.name+"-growth-MiB")
			}
			templateCalls := sum(reqs, func(k string) bool { return strings.Contains(k, "template") || strings.Contains(k, "_upload") })
			b.ReportMetric(float64(templateCalls), c.name+"-template-requests")
		}
	}
}
