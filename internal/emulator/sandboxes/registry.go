package sandboxes

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

// Lifecycle event types, as E2B names them.
const (
	EvCreated      = "sandbox.lifecycle.created"
	EvUpdated      = "sandbox.lifecycle.updated"
	EvPaused       = "sandbox.lifecycle.paused"
	EvResumed      = "sandbox.lifecycle.resumed"
	EvKilled       = "sandbox.lifecycle.killed"
	EvCheckpointed = "sandbox.lifecycle.checkpointed"
)

// Errors of the operations; the control plane words them as E2B does.
var (
	ErrNotFound       = errors.New("sandbox not found")
	ErrClosed         = errors.New("emulator is shutting down")
	ErrAlreadyPaused  = errors.New("sandbox is already paused")
	ErrAlreadyRunning = errors.New("sandbox is already running")
	// ErrResumeDenied: traffic may not resume the paused sandbox (it lacks the sandbox's token).
	ErrResumeDenied = errors.New("sandbox may not be resumed with the credentials provided")
	// ErrDiskOnlyResumeOff refuses memory=false on the resume of a sandbox paused with its
	// memory where the capability is off (Callbacks.DiskOnlyResumeOff).
	ErrDiskOnlyResumeOff = errors.New("resuming without memory is not enabled")
)

// NotRunningError refuses an operation that needs a running sandbox.
type NotRunningError struct{ State string }

func (e NotRunningError) Error() string { return "sandbox is " + e.State }

// LimitError is the concurrency cap's refusal, in E2B's words.
type LimitError struct{ Message string }

func (e LimitError) Error() string { return e.Message }

// Callbacks is what the registry needs of the emulator.
type Callbacks struct {
	// Event records a lifecycle event. It is called with the registry's lock
	// held, so events keep the order of what they tell; it must not block or
	// call the registry.
	Event func(rec Record, typ string, extra map[string]any)
	// Admit returns E2B's message when one sandbox more than running would go
	// over the concurrency cap, "" when it may start.
	Admit func(running int) string
	// Started is told, with the lock held, about each sandbox that starts (a
	// create or a fork), so that a sandbox anyone can see is counted.
	Started func(rec Record)
	// Expired is told, without the lock, about each sandbox whose timeout
	// ended it: killed (the caller destroys the machine) or paused.
	Expired func(m *envd.Machine, killed bool)
	// MaxLifetime caps a sandbox's end, counted from its start.
	MaxLifetime time.Duration
	// TransitionTime is how long a pause or a resume lasts (transition.go); 0 for none.
	TransitionTime time.Duration
	// DiskOnlyResumeOff refuses a resume without memory (a cold boot) of a sandbox paused with
	// its memory, as E2B does where its filesystem-only resume capability is off; a sandbox
	// paused without memory cold-boots on any resume either way.
	DiskOnlyResumeOff bool
}

// Registry holds the live sandboxes: each one's record, its machine and its
// TTL timer, behind one lock that nothing outside this package takes.
type Registry struct {
	callbacks Callbacks

	mu     sync.Mutex
	closed bool
	byID   map[string]*entry
}

type entry struct {
	rec   Record
	m     *envd.Machine
	timer *time.Timer
	gen   int         // bumped whenever the timer is stopped or re-armed
	busy  *transition // the pause or resume in progress (transition.go)
}

// New returns an empty registry.
func New(h Callbacks) *Registry {
	return &Registry{callbacks: h, byID: map[string]*entry{}}
}

// Start is what a create gives the registry for each new sandbox: a function
// that, with the registry's lock held, checks what it needs (the number of
// running sandboxes is given for the cap), starts the machine under the new
// ID and returns the record to keep. An error leaves nothing behind.
type Start func(id string, running int) (Record, *envd.Machine, error)

// Create adds one sandbox. extra goes into its created event.
func (g *Registry) Create(start Start, extra map[string]any) (Record, *envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return Record{}, nil, ErrClosed
	}
	return g.createLocked(start, extra)
}

func (g *Registry) createLocked(start Start, extra map[string]any) (Record, *envd.Machine, error) {
	id := ids.New("i", 20)
	for g.byID[id] != nil {
		id = ids.New("i", 20)
	}
	rec, m, err := start(id, g.runningLocked())
	if err != nil {
		return Record{}, nil, err
	}
	rec.ID, rec.State, rec.ExecutionID = id, Running, ids.UUID()
	e := &entry{rec: rec.clone(), m: m}
	g.byID[id] = e
	g.event(e, EvCreated, extra)
	if g.callbacks.Started != nil {
		g.callbacks.Started(e.rec.clone())
	}
	g.armLocked(e)
	return e.rec.clone(), m, nil
}

// Fork starts count sandboxes from a running one: capture (called with the
// lock held) takes what they start from, then start makes each; each fork
// succeeds or fails on its own.
func (g *Registry) Fork(id string, count int, capture func(src Record, m *envd.Machine) error, start func(src Record) Start) ([]Forked, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	src := g.byID[id]
	if src == nil {
		return nil, ErrNotFound
	}
	if src.rec.State != Running {
		return nil, NotRunningError{src.rec.State}
	}
	if err := capture(src.rec.clone(), src.m); err != nil {
		return nil, err
	}
	out := make([]Forked, 0, count)
	for i := 0; i < count; i++ {
		rec, m, err := g.createLocked(start(src.rec.clone()), map[string]any{"source_sandbox_id": id})
		out = append(out, Forked{Record: rec, Machine: m, Err: err})
	}
	return out, nil
}

// Forked is one sandbox of a fork, or why it did not start.
type Forked struct {
	Record  Record
	Machine *envd.Machine
	Err     error
}

// Get returns the sandbox's record and machine.
func (g *Registry) Get(id string) (Record, *envd.Machine, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.byID[id]
	if e == nil {
		return Record{}, nil, false
	}
	return e.rec.clone(), e.m, true
}

// List returns every sandbox's record, by start time newest first then ID
// (asc reverses both).
func (g *Registry) List(asc bool) []Record {
	g.mu.Lock()
	out := make([]Record, 0, len(g.byID))
	for _, e := range g.byID {
		out = append(out, e.rec.clone())
	}
	g.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return Before(out[i].StartedAt, out[i].ID, out[j].StartedAt, out[j].ID, asc) })
	return out
}

// Before is List's order: does (atA, idA) come before (atB, idB)?
func Before(atA time.Time, idA string, atB time.Time, idB string, asc bool) bool {
	if !atA.Equal(atB) {
		if asc {
			return atA.Before(atB)
		}
		return atA.After(atB)
	}
	if asc {
		return idA > idB
	}
	return idA < idB
}

// IDs lists the alive sandboxes, sorted.
func (g *Registry) IDs() []string {
	g.mu.Lock()
	out := make([]string, 0, len(g.byID))
	for id := range g.byID {
		out = append(out, id)
	}
	g.mu.Unlock()
	sort.Strings(out)
	return out
}

// Count is the number of alive (running or paused) sandboxes.
func (g *Registry) Count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.byID)
}

func (g *Registry) runningLocked() int {
	n := 0
	for _, e := range g.byID {
		if e.rec.State == Running || e.resumingLocked() {
			n++
		}
	}
	return n
}

// RunningMachines returns the machines of the running sandboxes.
func (g *Registry) RunningMachines() []*envd.Machine {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*envd.Machine
	for _, e := range g.byID {
		if e.rec.State == Running {
			out = append(out, e.m)
		}
	}
	return out
}

// BySignature finds the secure sandbox whose access token signed the
// request (signed URLs carry no sandbox header).
func (g *Registry) BySignature(r *http.Request) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id, e := range g.byID {
		if e.rec.Secure && e.m.SignatureMatches(r) {
			return id, true
		}
	}
	return "", false
}

// IfTemplateUnused runs fn, with the lock held so that no sandbox can start
// from the template meanwhile, unless a sandbox uses the template: then it
// returns the state of one that does ("running" before "paused").
func (g *Registry) IfTemplateUnused(templateID string, fn func()) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, st := range []string{Running, Paused} {
		for _, e := range g.byID {
			if e.rec.Template.ID == templateID && e.rec.State == st {
				return st
			}
		}
	}
	fn()
	return ""
}

// IfVolumeUnused runs fn, with the lock held so that no sandbox can mount
// the volume meanwhile, unless sandboxes mount it: then it returns their
// IDs, sorted.
func (g *Registry) IfVolumeUnused(name string, fn func()) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var users []string
	for id, e := range g.byID {
		for _, m := range e.rec.Mounts {
			if m.Name == name {
				users = append(users, id)
				break
			}
		}
	}
	if len(users) > 0 {
		sort.Strings(users)
		return users
	}
	fn()
	return nil
}

// IfOpen runs fn with the lock held unless the registry is closed, so that
// what fn starts is there for Close's caller to stop.
func (g *Registry) IfOpen(fn func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	fn()
	return true
}

// Close refuses every operation from now on and removes every sandbox (no
// events: the emulator is going away); the caller destroys the machines.
func (g *Registry) Close() []*envd.Machine {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	out := make([]*envd.Machine, 0, len(g.byID))
	for id, e := range g.byID {
		g.stopTimerLocked(e)
		delete(g.byID, id)
		out = append(out, e.m)
	}
	return out
}

func (g *Registry) event(e *entry, typ string, extra map[string]any) {
	if !g.closed {
		g.callbacks.Event(e.rec.clone(), typ, extra)
	}
}

func (g *Registry) lookupLocked(id string) (*entry, error) {
	if e := g.byID[id]; e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
}
