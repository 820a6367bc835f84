package store

import (
	"slices"
	"time"
)

// MaxEvents is how many lifecycle events the log keeps (the newest).
const MaxEvents = 10_000

// Event is one sandbox lifecycle event in the version-v2 format of E2B's
// events API, which is also what webhooks deliver.
type Event struct {
	ID                 string         `json:"id"`
	Version            string         `json:"version"`
	Type               string         `json:"type"`
	EventData          map[string]any `json:"eventData"`
	SandboxBuildID     string         `json:"sandboxBuildId"`
	SandboxExecutionID string         `json:"sandboxExecutionId"`
	SandboxID          string         `json:"sandboxId"`
	SandboxTeamID      string         `json:"sandboxTeamId"`
	SandboxTemplateID  string         `json:"sandboxTemplateId"`
	Timestamp          time.Time      `json:"timestamp"`
}

// RecordEvent appends ev to the log and names the enabled webhooks
// subscribed to its type, whose deliveries the caller queues.
func (st *Store) RecordEvent(ev Event) (webhookIDs []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.events = append(st.events, ev)
	if len(st.events) > MaxEvents {
		st.events = append([]Event(nil), st.events[len(st.events)-MaxEvents:]...)
	}
	for _, wh := range st.webhooks {
		if wh.Enabled && slices.Contains(wh.Events, ev.Type) {
			webhookIDs = append(webhookIDs, wh.ID)
		}
	}
	return webhookIDs
}

// Events lists the events of sandboxID ("" for all) whose type is in types
// (empty for all), oldest first when asc, else newest first.
func (st *Store) Events(sandboxID string, types map[string]bool, asc bool) []Event {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Event
	for i := range st.events {
		ev := st.events[i]
		if !asc {
			ev = st.events[len(st.events)-1-i]
		}
		if (sandboxID == "" || ev.SandboxID == sandboxID) && (len(types) == 0 || types[ev.Type]) {
			out = append(out, ev)
		}
	}
	return out
}
