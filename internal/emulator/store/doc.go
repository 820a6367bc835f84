// Package store is the emulator's store of plain records: templates with
// their builds, tags and the build step cache (kept in a file with a data
// dir of the caller's), secrets, the sandbox lifecycle event log, webhook
// registrations, the team's metric samples and volumes (whose records it
// also keeps on disk). It owns the one mutex that guards them and offers
// operations (create, look up, start a build, append to its log, finish it,
// assign tags, resolve a reference, list; for snapshot templates those of
// snapshots.go: add a snapshot, find one by name, list each once) that return
// copies, never its
// maps or pointers into them, so no caller can touch a record without the
// lock.
//
// It imports nothing of the emulator and calls nothing outside itself while
// it holds its lock (but the cancel function of a running build and the
// log function a failed save reports to), so a caller may hold its own lock
// (the sandbox registry's) while it calls the store, never the
// reverse. It knows no HTTP: validation of requests and the wire format of
// answers live with the handlers; build logs and reasons are kept in E2B's
// wire shapes, as the status route answers them.
//
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package store

import "sync"

// Store holds the records. The zero value is not usable; use New.
type Store struct {
	mu            sync.Mutex
	templates     map[string]*template
	stepCache     map[string]Layer // build step hash -> its result
	templatesFile string           // where templates are kept; "" = not kept
	logf          func(format string, args ...any)
	secrets       map[string]*secret
	events        []Event
	webhooks      map[string]*Webhook
	deliveries    map[string][]WebhookDelivery // by webhook ID, oldest first
	samples       []TeamSample
	volumes       map[string]Volume
	volumesDir    string
	starts        int // sandboxes started since the last team sample
}

// New returns an empty store.
func New() *Store {
	return &Store{templates: map[string]*template{}, stepCache: map[string]Layer{}, secrets: map[string]*secret{}, webhooks: map[string]*Webhook{}, deliveries: map[string][]WebhookDelivery{}, volumes: map[string]Volume{}}
}
