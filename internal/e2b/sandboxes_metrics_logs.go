package e2b

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// SandboxMetric is one resource-usage sample.
type SandboxMetric struct {
	Timestamp                                        time.Time
	TimestampUnix                                    int64
	CPUCount                                         int32
	CPUUsedPct                                       float64
	MemUsed, MemTotal, MemCache, DiskUsed, DiskTotal int64
}

type wireMetric struct {
	Timestamp     time.Time `json:"timestamp"`
	TimestampUnix int64     `json:"timestampUnix"`
	CPUCount      int32     `json:"cpuCount"`
	CPUUsedPct    float64   `json:"cpuUsedPct"`
	MemUsed       int64     `json:"memUsed"`
	MemTotal      int64     `json:"memTotal"`
	MemCache      int64     `json:"memCache"`
	DiskUsed      int64     `json:"diskUsed"`
	DiskTotal     int64     `json:"diskTotal"`
}

// GetSandboxMetrics returns the samples of one sandbox between start and end
// (unix seconds on the wire; nil = the sandbox's whole life).
func (c *Client) GetSandboxMetrics(ctx context.Context, id string, start, end *time.Time) ([]SandboxMetric, error) {
	q := url.Values{}
	if start != nil {
		q.Set("start", strconv.FormatInt(start.Unix(), 10))
	}
	if end != nil {
		q.Set("end", strconv.FormatInt(end.Unix(), 10))
	}
	var w []wireMetric
	_, err := c.callAPI(ctx, apiCall{
		op: "get sandbox metrics", sandboxID: id, subject: id, method: http.MethodGet,
		path: "/sandboxes/" + pathSeg(id) + "/metrics", query: q, class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, err
	}
	out := make([]SandboxMetric, 0, len(w))
	for _, m := range w {
		out = append(out, SandboxMetric(m))
	}
	return out, nil
}

// SandboxLogEntry is one structured log line of a sandbox.
type SandboxLogEntry struct {
	Timestamp      time.Time
	Level, Message string
	Fields         map[string]string
}

// LogsParams selects a page of GET /v2/sandboxes/{id}/logs. Page by passing
// the last entry's timestamp (ms) as the next Cursor.
type LogsParams struct {
	Cursor                   *int64 // ms since the epoch
	Limit                    int32
	Direction, Level, Search string
}

// GetSandboxLogs returns one page of logs (v2).
func (c *Client) GetSandboxLogs(ctx context.Context, id string, p LogsParams) ([]SandboxLogEntry, error) {
	q := url.Values{}
	if p.Cursor != nil {
		q.Set("cursor", strconv.FormatInt(*p.Cursor, 10))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(int(p.Limit)))
	}
	if p.Direction != "" {
		q.Set("direction", p.Direction)
	}
	if p.Level != "" {
		q.Set("level", p.Level)
	}
	if p.Search != "" {
		q.Set("search", p.Search)
	}
	var w struct {
		Logs []struct {
			Timestamp time.Time         `json:"timestamp"`
			Level     string            `json:"level"`
			Message   string            `json:"message"`
			Fields    map[string]string `json:"fields"`
		} `json:"logs"`
	}
	_, err := c.callAPI(ctx, apiCall{
		op: "get sandbox logs", sandboxID: id, subject: id, method: http.MethodGet,
		path: "/v2/sandboxes/" + pathSeg(id) + "/logs", query: q, class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, err
	}
	out := make([]SandboxLogEntry, 0, len(w.Logs))
	for _, l := range w.Logs {
		out = append(out, SandboxLogEntry(l))
	}
	return out, nil
}
