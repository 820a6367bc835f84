package emulator_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// envd's /metrics has the newest envd.yaml's fields: the CPU hotplug ones (all CPUs online, none
// asked for), no mem_*_mib, and no oom_kills (not known outside a Firecracker guest). CPU use is
// measured from /proc of the sandbox's processes, so a busy one shows.
func TestEnvdMetricsFields(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	read := func() map[string]json.RawMessage {
		st, data, _ := c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
		emulatortest.WantStatus(t, "envd metrics", st, data, http.StatusOK)
		return emulatortest.Decode[map[string]json.RawMessage](t, data)
	}
	m := read()
	for _, gone := range []string{"mem_total_mib", "mem_used_mib", "oom_kills"} {
		if _, ok := m[gone]; ok {
			t.Errorf("/metrics has %s: %s", gone, m[gone])
		}
	}
	want := map[string]string{"cpu_count": "2", "cpu_possible": "2", "cpu_target": "0", "cpu_target_attempts": "0", "cpu_write_pending_ms": "0"}
	for k, v := range want {
		if string(m[k]) != v {
			t.Errorf("/metrics %s = %s, want %s", k, m[k], v)
		}
	}
	for _, k := range []string{"ts", "cpu_used_pct", "mem_total", "mem_used", "mem_cache", "disk_used", "disk_total"} {
		if _, ok := m[k]; !ok {
			t.Errorf("/metrics lacks %s", k)
		}
	}
	c.StartProcess(sb, "while :; do :; done", nil, nil)
	emulatortest.Eventually(t, "a busy process shows in cpu_used_pct", func() bool {
		var pct float64
		return json.Unmarshal(read()["cpu_used_pct"], &pct) == nil && pct > 0
	})
}
