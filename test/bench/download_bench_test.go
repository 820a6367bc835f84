package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// BenchmarkProviderDownloadMemory: peak RSS (VmHWM) of the provider process while
// `terraform apply -invoke` runs e2b_sandbox_download on a 256 MiB file, against a tiny
// apply. The file streams to disk through one buffer, so the growth stays small. Needs a
// CLI with actions (Terraform 1.14+).
func BenchmarkProviderDownloadMemory(b *testing.B) {
	ctx := context.Background()
	srv := start(b)
	dest := filepath.Join(b.TempDir(), "out")
	ws := harness.NewWorkspace(b, srv)
	if strings.Contains(ws.Run(ctx, "version").Stdout, "OpenTofu") {
		b.Skip("OpenTofu has no actions: set TF_ACC_TERRAFORM_PATH to Terraform 1.14+")
	}
	ws.Write("main.tf", header+`
resource "e2b_sandbox" "s" {}
resource "e2b_sandbox_command" "big" {
  sandbox_id = e2b_sandbox.s.id
  command    = "head -c 268435456 /dev/urandom > /home/user/big.bin"
  timeout    = "10m"
}
action "e2b_sandbox_download" "big" {
  config {
    sandbox_id  = e2b_sandbox.s.id
    path        = "/home/user/big.bin"
    destination = "`+dest+`"
    if_exists   = "replace"
  }
}
`)
	for i := 0; i < b.N; i++ {
		watch := harness.WatchPeakRSS(harness.ProviderDir(b))
		run(b, ws.Apply(ctx), "baseline apply")
		baseline := watch.Stop()
		watch = harness.WatchPeakRSS(harness.ProviderDir(b))
		run(b, ws.Apply(ctx, "-invoke=action.e2b_sandbox_download.big"), "download")
		peak := watch.Stop()
		fi, err := os.Stat(filepath.Join(dest, "big.bin"))
		if err != nil || fi.Size() != 256<<20 {
			b.Fatalf("downloaded file: %v %v", fi, err)
		}
		b.ReportMetric(float64(baseline)/(1<<20), "baseline-peak-MiB")
		b.ReportMetric(float64(peak)/(1<<20), "download-256MiB-peak-MiB")
		b.ReportMetric(float64(peak-baseline)/(1<<20), "download-256MiB-growth-MiB")
		run(b, ws.Destroy(ctx), "destroy")
	}
}
