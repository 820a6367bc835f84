package controlplane

import (
	"net/http"
	"strconv"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

var eventTypes = map[string]bool{sandboxes.EvCreated: true, sandboxes.EvUpdated: true, sandboxes.EvPaused: true,
	sandboxes.EvResumed: true, sandboxes.EvKilled: true, sandboxes.EvCheckpointed: true}

// TeamID is the emulator's one team.
const TeamID = "00000000-0000-0000-0000-000000000000"

// recordEvent stores an event and queues its webhook deliveries; it never
// blocks. The registry calls it with its lock held.
func (s *API) recordEvent(rec sandboxes.Record, typ string, extra map[string]any) {
	now := time.Now().UTC()
	data := map[string]any{"sandbox_metadata": rec.Metadata}
	for k, v := range extra {
		data[k] = v
	}
	if typ == sandboxes.EvKilled || typ == sandboxes.EvPaused {
		tm := s.templateOf(rec)
		data["execution"] = map[string]any{
			"started_at": rec.StartedAt.Format(time.RFC3339), "vcpu_count": tm.CPUCount,
			"memory_mb": tm.MemoryMB, "execution_time": now.Sub(rec.StartedAt).Milliseconds(),
		}
	}
	ev := store.Event{
		ID: ids.UUID(), Version: "v2", Type: typ, EventData: data, SandboxExecutionID: rec.ExecutionID,
		SandboxID: rec.ID, SandboxTeamID: TeamID, SandboxTemplateID: rec.Template.ID, Timestamp: now,
	}
	s.dispatch(ev, s.opts.Store.RecordEvent(ev))
}

// handleEvents serves GET /events/sandboxes and /events/sandboxes/{id}:
// offset, limit (default 10, at most 100), orderAsc (default false, newest
// first) and repeated types.
func (s *API) handleEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, limit := 0, 10
	for _, p := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"offset", &offset, 0, 1 << 30}, {"limit", &limit, 1, 100}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min || n > p.max {
				writeErrorf(w, http.StatusBadRequest, "%s must be an integer from %d to %d", p.name, p.min, p.max)
				return
			}
			*p.dst = n
		}
	}
	asc := q.Get("orderAsc") == "true"
	types := map[string]bool{}
	for _, t := range q["types"] {
		if !eventTypes[t] {
			writeErrorf(w, http.StatusBadRequest, "unknown event type '%s'", t)
			return
		}
		types[t] = true
	}
	id := r.PathValue("id")
	out := s.opts.Store.Events(id, types, asc)
	if offset >= len(out) {
		out = nil
	} else {
		out = out[offset:min(len(out), offset+limit)]
	}
	if out == nil {
		out = []store.Event{}
	}
	httpjson.Write(w, http.StatusOK, out)
}
