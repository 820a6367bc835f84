package bench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// BenchmarkProviderTemplateMemory measures the provider process's peak RSS
// while it builds an e2b_template whose COPY step sends a small context and a
// 1 GiB one (16 files of 64 MiB that do not compress): the plan hashes the
// context, the apply hashes, archives and uploads it. It also counts the
// template requests of each apply.
func BenchmarkProviderTemplateMemory(b *testing.B) {
	srv := start(b)
	small, big := b.TempDir(), b.TempDir()
	harness.WriteRandomFile(b, filepath.Join(small, "data", "small.bin"), 1<<20, 1)
	for i := 0; i < 16; i++ {
		harness.WriteRandomFile(b, filepath.Join(big, "data", fmt.Sprintf("part-%02d.bin", i)), 64<<20, uint64(i+2))
	}
	config := func(name, dir string) string {
		return fmt.Sprintf(`
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
	cases := []memoryCase{{"baseline-1MiB", config("baseline-1mib", small)}, {"context-1GiB", config("context-1gib", big)}}
	measurePeakRSS(b, srv, cases, func(_ *harness.Workspace, name string, _ time.Duration) {
		reqs := srv.Counters().Requests
		templateCalls := sum(reqs, func(k string) bool { return strings.Contains(k, "template") || strings.Contains(k, "_upload") })
		b.ReportMetric(float64(templateCalls), name+"-template-requests")
	})
}
