package controlplane

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// SandboxMetricJSON is E2B's SandboxMetric.
type SandboxMetricJSON struct {
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

func metricJSON(m envd.MetricSample) SandboxMetricJSON {
	at := m.At.Truncate(time.Second)
	return SandboxMetricJSON{
		Timestamp: at, TimestampUnix: at.Unix(), CPUCount: int32(m.CPUCount), CPUUsedPct: m.CPUPct,
		MemUsed: m.MemUsed, MemTotal: m.MemTotal, DiskUsed: m.DiskUsed, DiskTotal: envd.DiskTotalBytes,
	}
}

func parseUnixParam(w http.ResponseWriter, q map[string][]string, name string) (*time.Time, bool) {
	vals := q[name]
	if len(vals) == 0 || vals[0] == "" {
		return nil, true
	}
	n, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil {
		validationError(w, "parameter \""+name+"\" in query has an error: value "+vals[0]+": an invalid integer: invalid syntax")
		return nil, false
	}
	t := time.Unix(n, 0)
	return &t, true
}

func (s *API) handleSandboxMetrics(w http.ResponseWriter, r *http.Request) {
	id, ok := sandboxIDParam(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	start, ok := parseUnixParam(w, q, "start")
	if !ok {
		return
	}
	end, ok := parseUnixParam(w, q, "end")
	if !ok {
		return
	}
	if start != nil && end != nil && start.After(*end) {
		writeError(w, http.StatusBadRequest, "start time cannot be after end time")
		return
	}
	_, sb, ok := s.sandbox(w, id)
	if !ok {
		return
	}
	out := []SandboxMetricJSON{}
	for _, m := range sb.SamplesCopy() {
		sec := m.At.Truncate(time.Second)
		if (start != nil && sec.Before(*start)) || (end != nil && sec.After(*end)) {
			continue
		}
		out = append(out, metricJSON(m))
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (s *API) handleManyMetrics(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("sandbox_ids")
	if raw == "" {
		validationError(w, `parameter "sandbox_ids" in query has an error: value is required but missing`)
		return
	}
	ids := map[string]bool{}
	for _, id := range strings.Split(raw, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids[id] = true
		}
	}
	if len(ids) > 100 {
		writeError(w, http.StatusBadRequest, "too many sandbox IDs: at most 100 are allowed")
		return
	}
	out := map[string]SandboxMetricJSON{}
	for id := range ids {
		if _, m, ok := s.sandboxes.Get(id); ok {
			if samples := m.SamplesCopy(); len(samples) > 0 {
				out[id] = metricJSON(samples[len(samples)-1])
			}
		}
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"sandboxes": out})
}

// SandboxLogEntryJSON is E2B's SandboxLogEntry.
type SandboxLogEntryJSON struct {
	Timestamp time.Time         `json:"timestamp"`
	Level     string            `json:"level"`
	Message   string            `json:"message"`
	Fields    map[string]string `json:"fields"`
}

// SandboxLogJSON is E2B's SandboxLog, a line of the legacy logs route.
type SandboxLogJSON struct {
	Timestamp time.Time `json:"timestamp"`
	Line      string    `json:"line"`
}

var logLevelRank = map[string]int{"debug": 0, "info": 1, "warn": 2, "error": 3}

func (s *API) sandboxForLogs(w http.ResponseWriter, r *http.Request) *envd.Machine {
	id, ok := sandboxIDParam(w, r)
	if !ok {
		return nil
	}
	_, m, _ := s.sandbox(w, id)
	return m
}

// handleLogsV1 is the deprecated GET /sandboxes/{id}/logs (start ms, limit).
func (s *API) handleLogsV1(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var start int64
	if v := q.Get("start"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			validationError(w, `parameter "start" in query has an error: value `+v+`: an invalid integer: invalid syntax`)
			return
		}
		start = n
	}
	limit := 1000
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			validationError(w, `parameter "limit" in query has an error: number must be at least 0`)
			return
		}
		limit = n
	}
	sb := s.sandboxForLogs(w, r)
	if sb == nil {
		return
	}
	logs, entries := []SandboxLogJSON{}, []SandboxLogEntryJSON{}
	for _, e := range sb.LogsCopy() {
		if e.At.UnixMilli() < start || len(entries) >= limit {
			continue
		}
		entries = append(entries, SandboxLogEntryJSON{Timestamp: e.At, Level: e.Level, Message: e.Message, Fields: e.Fields})
		logs = append(logs, SandboxLogJSON{Timestamp: e.At, Line: e.RawLine()})
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"logs": logs, "logEntries": entries})
}

// handleLogsV2 pages by cursor (ms): backward = (cursor-7d, cursor],
// forward = [cursor, cursor+7d).
func (s *API) handleLogsV2(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var cursor *int64
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			validationError(w, `parameter "cursor" in query has an error: value `+v+`: an invalid integer: invalid syntax`)
			return
		}
		cursor = &n
	}
	limit, ok := queryLimitBetween(w, q, 1000, 0, 1000)
	if !ok {
		return
	}
	direction := q.Get("direction")
	if direction == "" {
		direction = "backward"
	}
	if direction != "forward" && direction != "backward" {
		validationError(w, `parameter "direction" in query has an error: value is not one of the allowed values ["forward","backward"]`)
		return
	}
	minLevel := 0
	if lv := q.Get("level"); lv != "" {
		rank, ok := logLevelRank[lv]
		if !ok {
			validationError(w, `parameter "level" in query has an error: value is not one of the allowed values ["debug","info","warn","error"]`)
			return
		}
		minLevel = rank
	}
	search := q.Get("search")
	if len(search) > 256 {
		validationError(w, `parameter "search" in query has an error: maximum string length is 256`)
		return
	}
	sb := s.sandboxForLogs(w, r)
	if sb == nil {
		return
	}
	const window = 7 * 24 * time.Hour
	now := time.Now().UnixMilli()
	var lo, hi int64 // inclusive bounds in ms
	switch {
	case cursor == nil:
		lo, hi = now-window.Milliseconds(), now
	case direction == "backward":
		lo, hi = *cursor-window.Milliseconds()+1, *cursor
	default:
		lo, hi = *cursor, *cursor+window.Milliseconds()-1
	}
	var matched []SandboxLogEntryJSON
	for _, e := range sb.LogsCopy() {
		ms := e.At.UnixMilli()
		if ms < lo || ms > hi || logLevelRank[e.Level] < minLevel || (search != "" && !strings.Contains(e.Message, search)) {
			continue
		}
		matched = append(matched, SandboxLogEntryJSON{Timestamp: e.At, Level: e.Level, Message: e.Message, Fields: e.Fields})
	}
	if direction == "backward" {
		sort.SliceStable(matched, func(i, j int) bool { return matched[i].Timestamp.After(matched[j].Timestamp) })
	}
	if len(matched) > limit {
		matched = matched[:limit]
	}
	if matched == nil {
		matched = []SandboxLogEntryJSON{}
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"logs": matched})
}
