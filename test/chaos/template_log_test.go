package chaos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const templateLogConfig = harness.RequiredProviders + `
resource "e2b_template" "t" {
  name          = "log-check"
  from_template = "base"
  steps = [
    { env = { BUILD_TOKEN = "template-env-4c8e1a7f2b" } },
    { run = { command = "echo compiling-step-two; echo \"token is $BUILD_TOKEN\"" } },
    { run = { command = "echo packaging-step-three" } },
  ]
}
`

// TestChaosTemplateBuildLogAtInfo applies a template with TF_LOG=INFO: the
// provider's log shows the build as it runs, line by line with its step,
// and never the value of an env step, even when a step prints it.
func TestChaosTemplateBuildLogAtInfo(t *testing.T) {
	ctx := context.Background()
	_, ws := chaosWorkspace(t, templateLogConfig)
	ws.LogFile = filepath.Join(t.TempDir(), "info.log")
	ws.ExtraEnv = []string{"TF_LOG=INFO"} // after the workspace's TRACE: the last one wins

	mustApply(t, ctx, ws)
	if r := ws.Destroy(ctx); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
	raw, err := os.ReadFile(ws.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	if strings.Contains(log, "[TRACE]") || strings.Contains(log, "[DEBUG]") {
		t.Fatalf("the log is not at INFO level; the check would prove less than it says")
	}
	for _, want := range []string{"template build requested", "template build: compiling-step-two",
		"template build: packaging-step-three", "step=2", "token is ***"} {
		if !strings.Contains(log, want) {
			t.Errorf("the INFO log lacks %q", want)
		}
	}
	if i := strings.Index(log, "template-env-4c8e1a7f2b"); i >= 0 {
		t.Errorf("an env step's value reached the log: …%s…", log[max(0, i-150):min(len(log), i+60)])
	}
}
