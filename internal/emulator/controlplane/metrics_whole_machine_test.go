package controlplane_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// E2B's envd reports the whole virtual machine: an idle sandbox still shows the memory and CPU
// of its guest kernel and envd (E2B's integration tests require every figure non-zero), and the
// totals are the template's resources. All three metric routes say the same.
func TestIdleSandboxMetricsAreWholeMachineFigures(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	b := c.RequestBuild(map[string]any{"name": "metrics-size", "cpuCount": 4, "memoryMB": 1024})
	c.StartBuild(b, map[string]any{"fromTemplate": "base"})
	if s := c.WaitBuild(b); s.Status != store.BuildReady {
		t.Fatalf("build %s: %s", s.Status, emulatortest.LogText(s.LogEntries))
	}
	for _, tc := range []struct {
		template string
		cpus     int
		memMB    int64
	}{{"base", store.DefaultCPUCount, store.DefaultMemoryMB}, {"metrics-size", 4, 1024}} {
		sb := c.Create(map[string]any{"templateID": tc.template})
		check := func(route string, cpus int, pct float64, used, total int64) {
			t.Helper()
			if cpus != tc.cpus || total != tc.memMB<<20 {
				t.Errorf("%s of an idle %s sandbox: %d CPUs, %d bytes in all; want %d and %d (the template's)",
					route, tc.template, cpus, total, tc.cpus, tc.memMB<<20)
			}
			if pct < envd.IdleGuestCPUPct || used < envd.IdleGuestMemBytes || used > total {
				t.Errorf("%s of an idle %s sandbox: %.2f%% CPU, %d bytes used; want at least an idle guest's %.1f%% and %d bytes",
					route, tc.template, pct, used, envd.IdleGuestCPUPct, envd.IdleGuestMemBytes)
			}
		}

		st, data, _ := c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
		emulatortest.WantStatus(t, "envd metrics", st, data, http.StatusOK)
		var m struct {
			CPUCount int     `json:"cpu_count"`
			CPUPct   float64 `json:"cpu_used_pct"`
			MemUsed  int64   `json:"mem_used"`
			MemTotal int64   `json:"mem_total"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		check("envd /metrics", m.CPUCount, m.CPUPct, m.MemUsed, m.MemTotal)

		st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID+"/metrics", nil)
		emulatortest.WantStatus(t, "sandbox metrics", st, data, http.StatusOK)
		ms := emulatortest.Decode[[]controlplane.SandboxMetricJSON](t, data)
		if len(ms) == 0 {
			t.Fatalf("no metrics for %s", sb.SandboxID)
		}
		for _, s := range ms {
			check("GET /sandboxes/{id}/metrics", int(s.CPUCount), s.CPUUsedPct, s.MemUsed, s.MemTotal)
		}

		st, data, _ = c.API("GET", "/sandboxes/metrics?sandbox_ids="+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "sandboxes metrics", st, data, http.StatusOK)
		latest := emulatortest.Decode[struct {
			Sandboxes map[string]controlplane.SandboxMetricJSON `json:"sandboxes"`
		}](t, data).Sandboxes[sb.SandboxID]
		check("GET /sandboxes/metrics", int(latest.CPUCount), latest.CPUUsedPct, latest.MemUsed, latest.MemTotal)
	}
}

// CPU is read from the sandbox's cgroup, as a guest's CPU time is the whole VM's: a command
// that used the CPU and ended between two samples still shows in the second (a sum over the
// live processes would miss it).
func TestSandboxCPUIsTheCgroups(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	if _, ok := c.Machine(sb.SandboxID).Root().CPUTime(); !ok {
		t.Skip("this host gives sandboxes no cgroup (no private roots or no cgroup filesystem): CPU comes from /proc")
	}
	read := func() float64 {
		st, data, _ := c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
		emulatortest.WantStatus(t, "envd metrics", st, data, http.StatusOK)
		var m struct {
			CPUPct float64 `json:"cpu_used_pct"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m.CPUPct
	}
	read()
	c.MustRun(sb, `end=$(($(date +%s) + 1)); while [ "$(date +%s)" -le "$end" ]; do :; done`)
	if pct := read(); pct < envd.IdleGuestCPUPct+1 {
		t.Fatalf("cpu_used_pct after a command that kept a CPU busy for a second and ended: %.2f%%", pct)
	}
}
