package controlplane_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// The end of a build logs its start and ready commands with E2B's template
// manager's words: the start command and its output at info level, the ready
// command's output and failed attempts at debug level, then "Template is
// ready".
func TestTemplateBuildFinalizeLogsAsE2B(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: 20 * time.Second})
	const start = `echo hello from start; echo warn from start >&2; sleep 1; touch ready.flag; sleep 600`
	const ready = `echo checking; test -f ready.flag`
	b := c.RequestBuild(map[string]any{"name": "finalize-logs"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "startCmd": start, "readyCmd": ready})
	res := c.WaitBuild(b)
	if res.Status != store.BuildReady {
		t.Fatalf("build %s: %+v\n%s", res.Status, res.Reason, emulatortest.LogText(res.LogEntries))
	}
	var lines []string
	for _, e := range res.LogEntries {
		if e.Step != nil && *e.Step == "finalize" {
			lines = append(lines, e.Level+" "+e.Message)
		}
	}
	at := func(line string) int {
		i := slices.Index(lines, line)
		if i < 0 {
			t.Fatalf("finalize logs lack %q:\n%s", line, strings.Join(lines, "\n"))
		}
		return i
	}
	running := at("info Running start command: " + start)
	at("info [start] [stdout]: hello from start")
	at("info [start] [stderr]: warn from start")
	waiting := at("info Waiting for template to be ready: " + ready)
	at("debug [ready] [stdout]: checking")
	notReady := at("debug Template is not ready: exit status 1")
	done := at("info Template is ready")
	if running >= waiting || waiting >= notReady || notReady >= done || done != len(lines)-1 {
		t.Fatalf("finalize logs out of order:\n%s", strings.Join(lines, "\n"))
	}
}

// A start command without a ready command waits E2B's default, sleep 20.
func TestTemplateBuildDefaultReadyCommandIsE2Bs(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: 40 * time.Second})
	b := c.RequestBuild(map[string]any{"name": "default-ready"})
	began := time.Now()
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "startCmd": "sleep 600"})
	res := c.WaitBuild(b)
	logs := emulatortest.LogText(res.LogEntries)
	if res.Status != store.BuildReady || !strings.Contains(logs, "info finalize Waiting for template to be ready: sleep 20\n") ||
		!strings.Contains(logs, "info finalize Template is ready\n") {
		t.Fatalf("build %s:\n%s", res.Status, logs)
	}
	if took := time.Since(began); took < 20*time.Second {
		t.Fatalf("build finished after %s, before the default ready command could", took)
	}
}
