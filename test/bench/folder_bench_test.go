package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// BenchmarkProviderFolderMemory measures the provider process's peak RSS while an
// e2b_sandbox_folder uploads a small folder and a 264 MiB one (2,000 files of 4 KiB and four
// of 64 MiB that do not compress): the plan hashes the folder, the apply sends it in multipart
// batches. It also counts the upload requests and the downloads of a refresh that finds
// nothing changed.
func BenchmarkProviderFolderMemory(b *testing.B) {
	srv := start(b)
	small, big := b.TempDir(), b.TempDir()
	harness.WriteRandomFile(b, filepath.Join(small, "one.bin"), 1<<20, 1)
	for i := 0; i < 2000; i++ {
		p := filepath.Join(big, "src", fmt.Sprintf("m%02d", i%50), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %04d\n", i), 410)[:4096]), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		harness.WriteRandomFile(b, filepath.Join(big, "data", fmt.Sprintf("part-%d.bin", i)), 64<<20, uint64(i+2))
	}
	config := func(dir string) string {
		return fmt.Sprintf(`
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_folder" "f" {
  sandbox_id  = e2b_sandbox.s.id
  source      = %q
  destination = "/home/user/app"
}
`, dir)
	}
	cases := []memoryCase{{"baseline-1MiB", config(small)}, {"folder-264MiB", config(big)}}
	measurePeakRSS(b, srv, cases, func(ws *harness.Workspace, name string, elapsed time.Duration) {
		uploads := srv.Counters().Requests["envd POST /files"]
		srv.ResetCounters()
		run(b, ws.Run(context.Background(), "plan", "-detailed-exitcode", "-no-color", "-input=false"), name+" plan")
		downloads := srv.Counters().Requests["envd GET /files"]
		b.ReportMetric(elapsed.Seconds(), name+"-apply-s")
		b.ReportMetric(float64(uploads), name+"-upload-requests")
		b.ReportMetric(float64(downloads), name+"-refresh-downloads")
	})
}
