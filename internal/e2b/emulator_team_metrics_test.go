package e2b_test

import (
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestTeamMetricsThroughTheClient(t *testing.T) {
	e := newEnv(t)
	e.create(t, e2b.CreateSandboxRequest{})
	var got []e2b.TeamMetric
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		if got, err = e.c.TeamMetrics(e.ctx, e.srv.TeamID(), time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 && got[len(got)-1].ConcurrentSandboxes == 1 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(got) == 0 || got[len(got)-1].ConcurrentSandboxes != 1 || got[len(got)-1].SandboxStartRate <= 0 {
		t.Fatalf("metrics = %+v", got)
	}
	m, err := e.c.TeamMetricMax(e.ctx, e.srv.TeamID(), e2b.MetricConcurrentSandboxes, time.Now().Add(-time.Hour), time.Now())
	if err != nil || m.Value != 1 {
		t.Fatalf("max = %+v, %v", m, err)
	}
	if _, err := e.c.TeamMetrics(e.ctx, e.srv.TeamID(), time.Now(), time.Now().Add(-time.Hour)); err == nil {
		t.Fatal("a start after the end was accepted")
	}
	if _, err := e.c.TeamMetrics(e.ctx, "other-team", time.Time{}, time.Time{}); err == nil {
		t.Fatal("another team's metrics were served")
	}
}
