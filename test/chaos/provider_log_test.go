package chaos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// TF_LOG_PROVIDER alone asks the CLI for provider logs, so the provider must not turn its own
// and the SDK's logging off: the log holds the client's request lines and the framework's.
func TestProviderLogsWithTFLogProviderOnly(t *testing.T) {
	srv := startEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	logFile := filepath.Join(t.TempDir(), "provider.log")
	ws.ExtraEnv = []string{"TF_LOG_PROVIDER=TRACE", "TF_LOG_PATH=" + logFile}
	ws.Write("main.tf", harness.RequiredProviders+`
data "e2b_sandboxes" "all" {}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false"); r.Err != nil {
		t.Fatalf("plan: %v\n%s", r.Err, r.Output())
	}
	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"E2B HTTP request", "tf_provider_addr"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the provider log (%d bytes) has no %q line", len(raw), want)
		}
	}
}
