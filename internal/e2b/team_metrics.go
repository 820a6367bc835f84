package e2b

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// TeamMetric is one sample of a team's figures.
type TeamMetric struct {
	Timestamp           time.Time
	ConcurrentSandboxes int32
	SandboxStartRate    float64 // sandboxes started per second
}

// TeamMetricMax is the largest value of one metric in a range.
type TeamMetricMax struct {
	Timestamp time.Time
	Value     float64
}

// Team metric names for TeamMetricMax.
const (
	MetricConcurrentSandboxes = "concurrent_sandboxes"
	MetricSandboxStartRate    = "sandbox_start_rate"
)

func teamRangeQuery(start, end time.Time) url.Values {
	q := url.Values{}
	if !start.IsZero() {
		q.Set("start", strconv.FormatInt(start.Unix(), 10))
	}
	if !end.IsZero() {
		q.Set("end", strconv.FormatInt(end.Unix(), 10))
	}
	return q
}

// lastMetricsTime is the last second E2B's metrics store (ClickHouse's
// DateTime64) holds: E2B answers a later bound 400.
var lastMetricsTime = time.Date(2299, 12, 31, 23, 59, 59, 0, time.UTC)

// CheckTeamMetricsTime says why E2B would refuse t as a bound of a metrics
// range: E2B takes Unix seconds from 0 up to the end of 2299.
func CheckTeamMetricsTime(t time.Time) error {
	switch {
	case t.IsZero():
	case t.Before(time.Unix(0, 0)):
		return fmt.Errorf("%s is before 1970-01-01T00:00:00Z; E2B takes Unix seconds from 0", t.Format(time.RFC3339))
	case t.Unix() > lastMetricsTime.Unix():
		return fmt.Errorf("%s is after %s, the last time E2B's metrics store holds", t.Format(time.RFC3339), lastMetricsTime.Format(time.RFC3339))
	}
	return nil
}

func checkTeamRange(teamID string, start, end time.Time) error {
	if teamID == "" {
		return fmt.Errorf("the team ID is required")
	}
	for _, t := range []time.Time{start, end} {
		if err := CheckTeamMetricsTime(t); err != nil {
			return err
		}
	}
	return CheckTeamMetricsOrder(start, end)
}

// CheckTeamMetricsOrder says why E2B would refuse a range that ends before it
// starts (a zero bound is E2B's default and always fits).
func CheckTeamMetricsOrder(start, end time.Time) error {
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return fmt.Errorf("end %s is before start %s", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	return nil
}

// TeamMetrics reads the team's samples between start and end (zero: E2B's
// defaults).
func (c *Client) TeamMetrics(ctx context.Context, teamID string, start, end time.Time) ([]TeamMetric, error) {
	if err := checkTeamRange(teamID, start, end); err != nil {
		return nil, fmt.Errorf("team metrics: %w", err)
	}
	var w []struct {
		TimestampUnix       int64   `json:"timestampUnix"`
		ConcurrentSandboxes int32   `json:"concurrentSandboxes"`
		SandboxStartRate    float64 `json:"sandboxStartRate"`
	}
	_, err := c.callAPI(ctx, apiCall{op: "team metrics", method: http.MethodGet, path: "/teams/" + pathSeg(teamID) + "/metrics",
		query: teamRangeQuery(start, end), class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	out := make([]TeamMetric, 0, len(w))
	for _, m := range w {
		out = append(out, TeamMetric{Timestamp: time.Unix(m.TimestampUnix, 0).UTC(), ConcurrentSandboxes: m.ConcurrentSandboxes, SandboxStartRate: m.SandboxStartRate})
	}
	return out, nil
}

// TeamMetricMax reads the largest value of metric between start and end.
func (c *Client) TeamMetricMax(ctx context.Context, teamID, metric string, start, end time.Time) (*TeamMetricMax, error) {
	if err := checkTeamRange(teamID, start, end); err != nil {
		return nil, fmt.Errorf("team metric max: %w", err)
	}
	if metric != MetricConcurrentSandboxes && metric != MetricSandboxStartRate {
		return nil, fmt.Errorf("team metric max: unknown metric %q", metric)
	}
	q := teamRangeQuery(start, end)
	q.Set("metric", metric)
	var w struct {
		TimestampUnix int64   `json:"timestampUnix"`
		Value         float64 `json:"value"`
	}
	_, err := c.callAPI(ctx, apiCall{op: "team metric max", method: http.MethodGet, path: "/teams/" + pathSeg(teamID) + "/metrics/max",
		query: q, class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	return &TeamMetricMax{Timestamp: time.Unix(w.TimestampUnix, 0).UTC(), Value: w.Value}, nil
}
