package controlplane_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// createV2 creates a sandbox from base through POST /v2/sandboxes.
func createV2(c *emulatortest.Client) emulatortest.Sandbox {
	c.T.Helper()
	st, data, _ := c.API("POST", "/v2/sandboxes", map[string]any{"templateID": "base", "timeout": 120})
	emulatortest.WantStatus(c.T, "create v2", st, data, http.StatusCreated)
	return emulatortest.Decode[emulatortest.Sandbox](c.T, data)
}

func runningCount(c *emulatortest.Client) int {
	c.T.Helper()
	st, data, _ := c.API("GET", "/v2/sandboxes?state=running", nil)
	emulatortest.WantStatus(c.T, "list", st, data, http.StatusOK)
	return len(emulatortest.Decode[[]map[string]any](c.T, data))
}

// A v2 fork with count and memory=false answers one entry per fork; each fork has its source's
// files and none of its processes, and lives 300 s when no timeout is given.
func TestForkV2FilesystemOnly(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	src := createV2(c)
	c.MustRun(src, "echo forked > ~/f")
	ps := c.StartProcess(src, "sleep 303", nil, nil)
	emulatortest.Eventually(t, "the source's process runs", func() bool { return emulatortest.ProcState(ps.PID) != "" })
	st, data, _ := c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 3, "memory": false})
	emulatortest.WantStatus(t, "fork v2", st, data, http.StatusCreated)
	results := emulatortest.Decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(results) != 3 {
		t.Fatalf("fork of 3 answered %d entries: %s", len(results), data)
	}
	for i, r := range results {
		if r.Sandbox == nil || r.Error != nil {
			t.Fatalf("entry %d: %s", i, data)
		}
		fork := emulatortest.Sandbox{SandboxID: r.Sandbox.SandboxID, TemplateID: r.Sandbox.TemplateID, EnvdAccessToken: r.Sandbox.EnvdAccessToken}
		if out := c.MustRun(fork, "cat ~/f"); out != "forked\n" {
			t.Fatalf("fork %d: file %q", i, out)
		}
		st, procs := c.RPC(fork, "process.Process/List", map[string]any{})
		if st != http.StatusOK || strings.Contains(string(procs), "sleep 303") {
			t.Fatalf("fork %d: processes %d %s", i, st, procs)
		}
		d := c.Detail(fork.SandboxID)
		if life := d.EndAt.Sub(d.StartedAt); life < 299*time.Second || life > 301*time.Second {
			t.Fatalf("fork %d lives %s, want v2's default 300s", i, life)
		}
	}
	st, procs := c.RPC(src, "process.Process/List", map[string]any{})
	if st != http.StatusOK || !strings.Contains(string(procs), "sleep 303") {
		t.Fatalf("the source keeps its process: %d %s", st, procs)
	}
}

// A v2 fork asking for more than the team cap is refused with 400 and forks nothing; v1's
// count (up to 100) knows no such cap.
func TestForkV2TeamCap(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{ForkTeamCap: 2})
	src := createV2(c)
	before := runningCount(c)
	st, data, _ := c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 3})
	emulatortest.WantStatus(t, "fork over the cap", st, data, http.StatusBadRequest)
	if got := emulatortest.Decode[httpjson.ErrorJSON](t, data).Message; !strings.Contains(got, "limit of 2") {
		t.Fatalf("message %q", got)
	}
	if n := runningCount(c); n != before {
		t.Fatalf("a refused fork started %d sandboxes", n-before)
	}
	st, data, _ = c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 2})
	emulatortest.WantStatus(t, "fork at the cap", st, data, http.StatusCreated)
	st, data, _ = c.API("POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 3})
	emulatortest.WantStatus(t, "v1 fork of 3", st, data, http.StatusCreated)
	st, data, _ = c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 0})
	emulatortest.WantStatus(t, "v2 fork of 0", st, data, http.StatusBadRequest)
}

// Where resuming without memory is off, a filesystem-only fork is refused, never downgraded.
func TestForkV2WithoutMemoryRefusedWhereOff(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{DiskOnlyResumeOff: true})
	src := createV2(c)
	before := runningCount(c)
	st, data, _ := c.API("POST", "/v2/sandboxes/"+src.SandboxID+"/fork", map[string]any{"memory": false})
	emulatortest.WantStatus(t, "fork memory=false", st, data, http.StatusBadRequest)
	if got := emulatortest.Decode[httpjson.ErrorJSON](t, data); got.ErrorCode != "sandbox_memory_override_disabled" {
		t.Fatalf("error %s", data)
	}
	if n := runningCount(c); n != before {
		t.Fatalf("a refused fork started %d sandboxes", n-before)
	}
}

// Each set of sandbox routes can be switched off; its routes then answer E2B's 404 for a route
// it does not know, and the other set works.
func TestSandboxRoutesSwitchedOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    emulator.Options
		off, on string
	}{
		{"v1 off", emulator.Options{SandboxRoutesV1Off: true}, "", "/v2"},
		{"v2 off", emulator.Options{SandboxRoutesV2Off: true}, "/v2", ""},
	} {
		c := emulatortest.Start(t, tc.opts)
		st, data, _ := c.API("POST", tc.on+"/sandboxes", map[string]any{"templateID": "base", "timeout": 60})
		emulatortest.WantStatus(t, tc.name+": create on", st, data, http.StatusCreated)
		sb := emulatortest.Decode[emulatortest.Sandbox](t, data)
		for _, path := range []string{"/sandboxes", "/sandboxes/" + sb.SandboxID + "/connect", "/sandboxes/" + sb.SandboxID + "/fork"} {
			st, data, _ = c.API("POST", tc.off+path, map[string]any{"templateID": "base", "timeout": 60})
			emulatortest.WantStatus(t, tc.name+": "+tc.off+path, st, data, http.StatusNotFound)
			if msg := emulatortest.Decode[httpjson.ErrorJSON](t, data).Message; !strings.HasPrefix(msg, "validation error:") {
				t.Fatalf("%s: %s answered %q, not a route miss", tc.name, tc.off+path, msg)
			}
		}
		st, data, _ = c.API("POST", tc.on+"/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
		emulatortest.WantStatus(t, tc.name+": connect on", st, data, http.StatusOK)
		st, data, _ = c.API("POST", tc.on+"/sandboxes/"+sb.SandboxID+"/fork", map[string]any{"timeout": 60})
		emulatortest.WantStatus(t, tc.name+": fork on", st, data, http.StatusCreated)
	}
}

// NewSandboxV2 has no secure: a v2 sandbox is secured whatever the body says.
func TestCreateV2AlwaysSecure(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/v2/sandboxes", map[string]any{"templateID": "base", "secure": false})
	emulatortest.WantStatus(t, "create v2 secure=false", st, data, http.StatusCreated)
	if sb := emulatortest.Decode[controlplane.SandboxJSON](t, data); sb.EnvdAccessToken == "" {
		t.Fatalf("a v2 sandbox without an access token: %s", data)
	}
}
