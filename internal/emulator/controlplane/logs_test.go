package controlplane_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// TestLegacyLogLinesAreStructured: GET /sandboxes/{id}/logs answers every
// line as E2B stores it, one flat JSON object with level, logger and
// message, which E2B's CLI (`e2b sandbox logs`) parses; logEntries carry the
// same entries, and the v2 route (the provider's) is unchanged.
func TestLegacyLogLinesAreStructured(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	sb := c.Create(map[string]any{})
	c.MustRun(sb, "true")
	st, data, _ := c.API("GET", "/sandboxes/"+sb.SandboxID+"/logs", nil)
	emulatortest.WantStatus(t, "legacy logs", st, data, http.StatusOK)
	var body struct {
		Logs       []controlplane.SandboxLogJSON      `json:"logs"`
		LogEntries []controlplane.SandboxLogEntryJSON `json:"logEntries"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Logs) < 3 || len(body.Logs) != len(body.LogEntries) {
		t.Fatalf("%d lines, %d entries: %s", len(body.Logs), len(body.LogEntries), data)
	}
	loggers := map[string]string{}
	for i, l := range body.Logs {
		var line map[string]any
		if err := json.Unmarshal([]byte(l.Line), &line); err != nil {
			t.Fatalf("line %d %q is not a JSON object: %v", i, l.Line, err)
		}
		e := body.LogEntries[i]
		level, _ := line["level"].(string)
		logger, _ := line["logger"].(string)
		if level != e.Level || logger == "" || line["message"] != e.Message || line["sandboxID"] != sb.SandboxID || !l.Timestamp.Equal(e.Timestamp) {
			t.Fatalf("line %d %q does not match its entry %+v", i, l.Line, e)
		}
		for k, want := range e.Fields {
			if line[k] != want {
				t.Fatalf("line %d %q: field %s want %q", i, l.Line, k, want)
			}
		}
		loggers[e.Message] = logger
	}
	if loggers["Sandbox created"] != "emulator" || loggers["Process started"] != "process" || loggers["Process exited"] != "process" {
		t.Fatalf("loggers %v", loggers)
	}
	v.AssertClean(t)
}
