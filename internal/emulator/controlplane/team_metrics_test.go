package controlplane_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

func TestTeamMetricsFollowTheSandboxes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	_ = b
	st, data, _ := c.API("POST", "/sandboxes/"+a.SandboxID+"/pause", map[string]any{})
	if st != http.StatusNoContent {
		t.Fatalf("pause: %d %s", st, data)
	}
	var metrics []controlplane.TeamMetricJSON
	emulatortest.Eventually(t, "a sample with one running sandbox", func() bool {
		st, data, _ := c.API("GET", "/teams/"+controlplane.TeamID+"/metrics", nil)
		emulatortest.WantStatus(t, "metrics", st, data, http.StatusOK)
		metrics = emulatortest.Decode[[]controlplane.TeamMetricJSON](t, data)
		return len(metrics) >= 2 && metrics[len(metrics)-1].ConcurrentSandboxes == 1
	})
	if first := metrics[0]; first.ConcurrentSandboxes != 0 {
		t.Fatalf("baseline sample %+v", first)
	}
	last := metrics[len(metrics)-1]
	// Two starts within the first sample's window (about one interval).
	if r := last.SandboxStartRate; r < 2/(2*envd.SampleInterval.Seconds()) || r > 2/(envd.SampleInterval.Seconds()/2) {
		t.Fatalf("start rate %v, want about %v", r, 2/envd.SampleInterval.Seconds())
	}
	st, data, _ = c.API("GET", "/teams/"+controlplane.TeamID+"/metrics/max?metric=sandbox_start_rate", nil)
	emulatortest.WantStatus(t, "max", st, data, http.StatusOK)
	if m := emulatortest.Decode[controlplane.MaxTeamMetricJSON](t, data); m.Value != last.SandboxStartRate {
		t.Fatalf("max start rate %+v", m)
	}
	for path, want := range map[string]int{
		"/teams/other/metrics":                           http.StatusForbidden,
		"/teams/" + controlplane.TeamID + "/metrics/max": http.StatusBadRequest,
		"/teams/" + controlplane.TeamID + "/metrics?start=" + strconv.FormatInt(time.Now().Unix()+100, 10) + "&end=" + strconv.FormatInt(time.Now().Unix(), 10): http.StatusBadRequest,
	} {
		if st, data, _ := c.API("GET", path, nil); st != want {
			t.Errorf("%s: %d %s, want %d", path, st, data, want)
		}
	}
}

func TestMCPAndIAMAcceptedAndChecked(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.Create(map[string]any{"mcp": map[string]any{"github": map[string]any{"token": "x"}},
		"iam": map[string]any{"tokens": map[string]any{"aws": map[string]any{"audience": "sts.amazonaws.com", "tokenType": "jwt"}}}})
	for _, body := range []map[string]any{
		{"templateID": "base", "mcp": []int{1}},
		{"templateID": "base", "iam": map[string]any{"tokens": map[string]any{"aws": map[string]any{"audience": "a"}}}},
	} {
		st, data, _ := c.API("POST", "/sandboxes", body)
		if st != http.StatusBadRequest || !strings.Contains(string(data), "doesn't match schema") {
			t.Errorf("%v: %d %s", body, st, data)
		}
	}
}

// E2B's metrics store ends with 2299: a later start or end is refused with
// its words, on both team metric routes, before the range is compared.
func TestTeamMetricsRefuseBoundsAfter2299(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	last := time.Date(2299, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	now := strconv.FormatInt(time.Now().Unix(), 10)
	after := strconv.FormatInt(last+1, 10)
	const bound = "2299-12-31 23:59:59.999999999 +0000 UTC"
	for _, tc := range []struct{ query, want string }{
		{"start=" + now + "&end=" + after, "end time cannot be after " + bound},
		{"start=" + after + "&end=" + after, "start time cannot be after " + bound},
		{"start=" + after, "start time cannot be after " + bound},
	} {
		for _, path := range []string{"/metrics?", "/metrics/max?metric=concurrent_sandboxes&"} {
			st, data, _ := c.API("GET", "/teams/"+controlplane.TeamID+path+tc.query, nil)
			emulatortest.WantError(t, path+tc.query, st, data, http.StatusBadRequest, tc.want)
		}
	}
	st, data, _ := c.API("GET", "/teams/"+controlplane.TeamID+"/metrics?start="+now+"&end="+strconv.FormatInt(last, 10), nil)
	emulatortest.WantStatus(t, "end at the last second E2B can store", st, data, http.StatusOK)
}
