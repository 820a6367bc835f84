package controlplane

import (
	"net/http"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// The team's metrics come from a sample the sampler takes every
// envd.SampleInterval: the sandboxes running then, and the sandboxes started
// since the previous sample per second. A day of samples is kept.

const maxTeamSamples = int(24 * time.Hour / envd.SampleInterval)

// maxMetricsTime is the last instant E2B's metrics store can hold
// (ClickHouse's DateTime64); E2B's 400 names it as Go prints a time.
var maxMetricsTime = time.Date(2299, 12, 31, 23, 59, 59, 999999999, time.UTC)

// TeamMetricJSON is E2B's TeamMetric.
type TeamMetricJSON struct {
	Timestamp           time.Time `json:"timestamp"`
	TimestampUnix       int64     `json:"timestampUnix"`
	ConcurrentSandboxes int32     `json:"concurrentSandboxes"`
	SandboxStartRate    float64   `json:"sandboxStartRate"`
}

// MaxTeamMetricJSON is E2B's MaxTeamMetric.
type MaxTeamMetricJSON struct {
	Timestamp     time.Time `json:"timestamp"`
	TimestampUnix int64     `json:"timestampUnix"`
	Value         float64   `json:"value"`
}

// teamRange checks {teamID} and reads start/end (default: the last hour).
func (s *API) teamRange(w http.ResponseWriter, r *http.Request) (start, end time.Time, ok bool) {
	if r.PathValue("teamID") != TeamID {
		writeErrorf(w, http.StatusForbidden, "You are not allowed to access team '%s'", r.PathValue("teamID"))
		return start, end, false
	}
	q := r.URL.Query()
	from, ok := parseUnixParam(w, q, "start")
	if !ok {
		return start, end, false
	}
	to, ok := parseUnixParam(w, q, "end")
	if !ok {
		return start, end, false
	}
	end = time.Now()
	if to != nil {
		end = *to
	}
	start = end.Add(-time.Hour)
	if from != nil {
		start = *from
	}
	// E2B keeps team metrics in ClickHouse, whose DateTime64 ends with
	// 2299; its handler refuses a later bound before it looks at the range
	// (ValidateDates in e2b-dev/infra packages/api/internal/utils).
	if start.After(maxMetricsTime) {
		writeErrorf(w, http.StatusBadRequest, "start time cannot be after %s", maxMetricsTime)
		return start, end, false
	}
	if end.After(maxMetricsTime) {
		writeErrorf(w, http.StatusBadRequest, "end time cannot be after %s", maxMetricsTime)
		return start, end, false
	}
	if start.After(end) {
		writeError(w, http.StatusBadRequest, "start time cannot be after end time")
		return start, end, false
	}
	return start, end, true
}

func (s *API) handleTeamMetrics(w http.ResponseWriter, r *http.Request) {
	start, end, ok := s.teamRange(w, r)
	if !ok {
		return
	}
	out := []TeamMetricJSON{}
	for _, t := range s.opts.Store.TeamSamples(start, end) {
		out = append(out, TeamMetricJSON{Timestamp: t.At, TimestampUnix: t.At.Unix(), ConcurrentSandboxes: t.Concurrent, SandboxStartRate: t.StartRate})
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (s *API) handleTeamMetricsMax(w http.ResponseWriter, r *http.Request) {
	metric := r.URL.Query().Get("metric")
	if metric != "concurrent_sandboxes" && metric != "sandbox_start_rate" {
		validationError(w, `parameter "metric" in query has an error: value is not one of the allowed values ["concurrent_sandboxes","sandbox_start_rate"]`)
		return
	}
	start, end, ok := s.teamRange(w, r)
	if !ok {
		return
	}
	best := MaxTeamMetricJSON{Timestamp: end.UTC().Truncate(time.Second)}
	for _, t := range s.opts.Store.TeamSamples(start, end) {
		v := float64(t.Concurrent)
		if metric == "sandbox_start_rate" {
			v = t.StartRate
		}
		if v > best.Value {
			best = MaxTeamMetricJSON{Timestamp: t.At, Value: v}
		}
	}
	best.TimestampUnix = best.Timestamp.Unix()
	httpjson.Write(w, http.StatusOK, best)
}
