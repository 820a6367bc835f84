package emulator

import (
	"net/http"
	"strconv"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// Sandbox lifecycle event types, as E2B names them.
const (
	evCreated      = "sandbox.lifecycle.created"
	evUpdated      = "sandbox.lifecycle.updated"
	evPaused       = "sandbox.lifecycle.paused"
	evResumed      = "sandbox.lifecycle.resumed"
	evKilled       = "sandbox.lifecycle.killed"
	evCheckpointed = "sandbox.lifecycle.checkpointed"
)

var eventTypes = map[string]bool{evCreated: true, evUpdated: true, evPaused: true, evResumed: true, evKilled: true, evCheckpointed: true}

// teamID is the emulator's one team.
const teamID = "00000000-0000-0000-0000-000000000000"

// recordEventLocked stores an event and queues its webhook deliveries; it
// never blocks. Caller holds s.mu.
func (s *Server) recordEventLocked(sb *sandbox, typ string, extra map[string]any) {
	if s.closed {
		return
	}
	now := time.Now().UTC()
	data := map[string]any{"sandbox_metadata": copyMap(sb.metadata)}
	for k, v := range extra {
		data[k] = v
	}
	if typ == evKilled || typ == evPaused {
		tm := s.templateOf(sb)
		data["execution"] = map[string]any{
			"started_at": sb.startedAt.Format(time.RFC3339), "vcpu_count": tm.CPUCount,
			"memory_mb": tm.MemoryMB, "execution_time": now.Sub(sb.startedAt).Milliseconds(),
		}
	}
	ev := state.Event{
		ID: ids.UUID(), Version: "v2", Type: typ, EventData: data, SandboxExecutionID: sb.executionID,
		SandboxID: sb.id, SandboxTeamID: teamID, SandboxTemplateID: sb.tmpl.ID, Timestamp: now,
	}
	s.dispatchLocked(ev, s.store.RecordEvent(ev))
}

// handleEvents serves GET /events/sandboxes and /events/sandboxes/{id}:
// offset, limit (default 10, at most 100), orderAsc (default false, newest
// first) and repeated types.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
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
	out := s.store.Events(id, types, asc)
	if offset >= len(out) {
		out = nil
	} else {
		out = out[offset:min(len(out), offset+limit)]
	}
	if out == nil {
		out = []state.Event{}
	}
	httpjson.Write(w, http.StatusOK, out)
}
