package e2b

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// SandboxEvent is one lifecycle event from GET /events/sandboxes.
type SandboxEvent struct {
	ID, Version, Type                      string
	SandboxID, TemplateID, BuildID, TeamID string
	ExecutionID                            string
	Timestamp                              time.Time
	Data                                   json.RawMessage // eventData as sent
}

// ListEventsParams filters and pages the events.
type ListEventsParams struct {
	SandboxID string   // "" = every sandbox of the team
	Types     []string // "" = every type
	Ascending bool     // oldest first (E2B's default is newest first)
	Offset    int
	Limit     int // events wanted in all; 0 = one page of 100
}

type wireEvent struct {
	ID                 string          `json:"id"`
	Version            string          `json:"version"`
	Type               string          `json:"type"`
	EventData          json.RawMessage `json:"eventData"`
	SandboxBuildID     string          `json:"sandboxBuildId"`
	SandboxExecutionID string          `json:"sandboxExecutionId"`
	SandboxID          string          `json:"sandboxId"`
	SandboxTeamID      string          `json:"sandboxTeamId"`
	SandboxTemplateID  string          `json:"sandboxTemplateId"`
	Timestamp          time.Time       `json:"timestamp"`
}

// eventPage is the most E2B returns at once.
const eventPage = 100

// ListSandboxEvents reads lifecycle events, paging with offset and limit.
func (c *Client) ListSandboxEvents(ctx context.Context, p ListEventsParams) ([]SandboxEvent, error) {
	path := "/events/sandboxes"
	if p.SandboxID != "" {
		path += "/" + pathSeg(p.SandboxID)
	}
	var out []SandboxEvent
	offset := p.Offset
	for {
		size := eventPage
		if p.Limit > 0 {
			size = min(eventPage, p.Limit-len(out))
		}
		q := url.Values{"offset": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(size)}, "orderAsc": {strconv.FormatBool(p.Ascending)}}
		for _, t := range p.Types {
			q.Add("types", t)
		}
		var w []wireEvent
		_, err := c.callAPI(ctx, apiCall{op: "list sandbox events", sandboxID: p.SandboxID, method: http.MethodGet,
			path: path, query: q, class: retryIdempotent, out: &w})
		if err != nil {
			return nil, err
		}
		for _, e := range w {
			out = append(out, SandboxEvent{ID: e.ID, Version: e.Version, Type: e.Type, SandboxID: e.SandboxID,
				TemplateID: e.SandboxTemplateID, BuildID: e.SandboxBuildID, TeamID: e.SandboxTeamID,
				ExecutionID: e.SandboxExecutionID, Timestamp: e.Timestamp, Data: e.EventData})
		}
		offset += len(w)
		if len(w) < size || (p.Limit > 0 && len(out) >= p.Limit) || p.Limit == 0 {
			return out, nil
		}
	}
}
