// Package state is the emulator's store of plain records: secrets, the
// sandbox lifecycle event log, webhook registrations, the team's metric
// samples and volumes (whose records it also keeps on disk). It owns the one mutex that guards them and offers operations
// (create, look up, change, list) that return copies, never its maps or
// pointers into them, so no caller can touch a record without the lock.
//
// It imports nothing of the emulator and calls nothing outside itself while
// it holds its lock, so a caller may hold its own lock (the server's, for
// sandboxes and templates) while it calls the store, never the reverse.
// It knows no HTTP: validation of requests and the wire format of answers
// live with the handlers.
package state

import "sync"

// Store holds the records. The zero value is not usable; use New.
type Store struct {
	mu         sync.Mutex
	secrets    map[string]*secret
	events     []Event
	webhooks   map[string]*Webhook
	samples    []TeamSample
	volumes    map[string]Volume
	volumesDir string
	starts     int // sandboxes started since the last team sample
}

// New returns an empty store.
func New() *Store {
	return &Store{secrets: map[string]*secret{}, webhooks: map[string]*Webhook{}, volumes: map[string]Volume{}}
}
