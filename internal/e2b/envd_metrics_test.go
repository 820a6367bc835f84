package e2b

import (
	"context"
	"net/http"
	"testing"
)

// oom_kills is told apart: absent (not known), empty (none) and listed.
func TestEnvdMetricsOOMKills(t *testing.T) {
	bodies := map[string]string{
		"unknown": `{"ts":1,"cpu_count":2,"cpu_possible":4,"cpu_target":2,"cpu_target_attempts":1,"cpu_write_pending_ms":5}`,
		"none":    `{"ts":1,"cpu_count":2,"oom_kills":[]}`,
		"two":     `{"ts":1,"cpu_count":2,"oom_kills":[{"seq":7,"process":"python3"},{"seq":9,"process":"Unknown"}]}`,
	}
	for name, body := range bodies {
		rs := newRouteServer(t, map[string]http.HandlerFunc{"GET /metrics": answerJSON(200, body)})
		m, err := newTestClient(t, fastConfig(rs.URL)).Envd(EnvdTarget{SandboxID: "isb1"}).Metrics(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch name {
		case "unknown":
			if m.OOMKills != nil || m.CPUPossible != 4 || m.CPUTarget != 2 || m.CPUTargetAttempts != 1 || m.CPUWritePendingMs != 5 {
				t.Fatalf("%s: %+v", name, m)
			}
		case "none":
			if m.OOMKills == nil || len(m.OOMKills) != 0 {
				t.Fatalf("%s: %+v", name, m.OOMKills)
			}
		case "two":
			if len(m.OOMKills) != 2 || m.OOMKills[0] != (OOMKill{Seq: 7, Process: "python3"}) || m.OOMKills[1].Seq != 9 {
				t.Fatalf("%s: %+v", name, m.OOMKills)
			}
		}
	}
}
