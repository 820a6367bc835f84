package sandboxes

import (
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// A pause or a resume takes E2B time: a memory snapshot is written or read back (E2B's docs:
// about 4 s per GiB of memory to pause, about 1 s to resume). The emulator's take no time, so
// without a model of that time no request could ever arrive during one, and every request but
// the first of a burst would find the work done and be refused. Callbacks.TransitionTime is
// that time: the sandbox stays in its transition that long, and a lifecycle request for it
// that arrives meanwhile does what E2B's does (e2b-dev/infra: the sandbox store's
// StartRemoving and the resume's reservation):
//   - a pause during a pause waits for it and answers with its result (204);
//   - a resume or connect during a resume waits for it and answers with the sandbox it
//     started (201);
//   - a resume or connect during a pause waits for it, then resumes the sandbox;
//   - a pause during a resume finds the sandbox still paused (E2B keeps it out of its store
//     until it runs) and is refused as already paused.
//
// A pause takes effect at once (E2B reports a pausing sandbox as paused, and its processes
// stop); a resume at the end of its transition (until then E2B knows only the snapshot).

const (
	transitionPause  = "pause"
	transitionResume = "resume"
)

// transition is a pause or resume in progress; done closes when it ends, with its result.
type transition struct {
	kind string
	done chan struct{}
	rec  Record
	m    *envd.Machine
	err  error
}

// beginLocked puts the sandbox in a transition of kind.
func (g *Registry) beginLocked(e *entry, kind string) *transition {
	t := &transition{kind: kind, done: make(chan struct{})}
	e.busy = t
	return t
}

// holdLocked lets a transition last TransitionTime, without the lock: it is called and
// returns with the lock held.
func (g *Registry) holdLocked() {
	if d := g.callbacks.TransitionTime; d > 0 {
		g.mu.Unlock()
		time.Sleep(d)
		g.mu.Lock()
	}
}

// endLocked ends the transition with its result and wakes those waiting for it.
func (g *Registry) endLocked(e *entry, t *transition, rec Record, m *envd.Machine, err error) {
	t.rec, t.m, t.err = rec, m, err
	if e.busy == t {
		e.busy = nil
	}
	close(t.done)
}

// waitLocked waits, without the lock, for the transition to end: it is called and returns
// with the lock held.
func (g *Registry) waitLocked(t *transition) {
	g.mu.Unlock()
	<-t.done
	g.mu.Lock()
}

// resumingLocked reports whether the sandbox is being resumed: it counts as running for the
// concurrency cap, as E2B's reservation does.
func (e *entry) resumingLocked() bool {
	return e.busy != nil && e.busy.kind == transitionResume
}
