package controlplane_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// memory=false on connect (both routes) or resume of a sandbox paused with its memory cold-boots
// it: the processes the pause froze are gone, its files are kept.
func TestResumeWithoutMemoryColdBoots(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	for _, route := range []string{"/sandboxes/%s/connect", "/v2/sandboxes/%s/connect", "/sandboxes/%s/resume"} {
		sb := c.Create(map[string]any{})
		c.MustRun(sb, "echo kept > ~/f")
		ps := c.StartProcess(sb, "sleep 301", nil, nil)
		host := c.HostPID(sb, ps.PID)
		st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
		emulatortest.WantStatus(t, route+": pause", st, data, http.StatusNoContent)
		emulatortest.Eventually(t, route+": the pause with memory stops the process", func() bool {
			return emulatortest.ProcState(host) == "T"
		})
		st, data, _ = c.API("POST", strings.Replace(route, "%s", sb.SandboxID, 1), map[string]any{"timeout": 60, "memory": false})
		emulatortest.WantStatus(t, route+" memory=false", st, data, http.StatusCreated)
		emulatortest.Eventually(t, route+": the frozen process is killed", func() bool {
			s := emulatortest.ProcState(host)
			return s == "" || s == "Z"
		})
		st, data = c.RPC(sb, "process.Process/List", map[string]any{})
		if st != http.StatusOK || strings.Contains(string(data), "sleep 301") {
			t.Fatalf("%s: processes after a cold boot: %d %s", route, st, data)
		}
		if out := c.MustRun(sb, "cat ~/f"); out != "kept\n" {
			t.Fatalf("%s: file after a cold boot %q", route, out)
		}
	}
}

// Where the capability is off, memory=false on a sandbox paused with its memory is refused with
// E2B's 400 and error_code, and the sandbox stays paused; a plain resume still works, and so does
// memory=false where it changes nothing (a running sandbox, a pause that kept no memory).
func TestResumeWithoutMemoryRefusedWhereOff(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{DiskOnlyResumeOff: true})
	sb := c.Create(map[string]any{})
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60, "memory": false})
	emulatortest.WantStatus(t, "running, memory=false", st, data, http.StatusOK)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/resume", map[string]any{"memory": false})
	emulatortest.WantStatus(t, "resume of a running sandbox", st, data, http.StatusConflict)

	ps := c.StartProcess(sb, "sleep 302", nil, nil)
	host := c.HostPID(sb, ps.PID)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	for _, route := range []string{"/sandboxes/%s/connect", "/v2/sandboxes/%s/connect", "/sandboxes/%s/resume"} {
		st, data, _ = c.API("POST", strings.Replace(route, "%s", sb.SandboxID, 1), map[string]any{"timeout": 60, "memory": false})
		emulatortest.WantStatus(t, route+" memory=false", st, data, http.StatusBadRequest)
		if e := emulatortest.Decode[httpjson.ErrorJSON](t, data); e.ErrorCode != "sandbox_memory_override_disabled" {
			t.Fatalf("%s: error %+v, want error_code sandbox_memory_override_disabled", route, e)
		}
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Paused {
		t.Fatalf("state %q after the refusals, want paused", d.State)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
	emulatortest.WantStatus(t, "plain connect", st, data, http.StatusCreated)
	emulatortest.Eventually(t, "a resume with memory continues the process", func() bool {
		s := emulatortest.ProcState(host)
		return s == "S" || s == "R"
	})

	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", map[string]any{"memory": false})
	emulatortest.WantStatus(t, "pause without memory", st, data, http.StatusNoContent)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60, "memory": false})
	emulatortest.WantStatus(t, "memory=false after a pause without memory", st, data, http.StatusCreated)
}
