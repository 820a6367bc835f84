package sandboxes

import (
	"fmt"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

// Machines change state with the registry's lock held, so that a pause and
// a resume of one sandbox can never reach its processes out of order.

// SetTimeout ends a running sandbox d from now (capped at the maximum
// lifetime, silently, as E2B does) and returns the new end and its machine.
func (g *Registry) SetTimeout(id string, d time.Duration, extra map[string]any) (time.Time, *envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.runningEntryLocked(id)
	if err != nil {
		return time.Time{}, nil, err
	}
	end := time.Now().UTC().Add(d)
	if limit := e.rec.StartedAt.Add(g.callbacks.MaxLifetime); end.After(limit) {
		end = limit
	}
	e.rec.EndAt = end
	g.armLocked(e)
	g.event(e, EvUpdated, extra)
	return end, e.m, nil
}

// Refresh moves a running sandbox's end to d from now when that is later.
func (g *Registry) Refresh(id string, d time.Duration) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.runningEntryLocked(id)
	if err != nil {
		return err
	}
	g.extendLocked(e, d)
	return nil
}

// Pause freezes the sandbox's processes (or kills them when memory is
// false, keeping only its files) and drops its envd streams. A pause of a
// sandbox being paused waits for that pause and shares its result; one of a
// sandbox being resumed is refused as already paused (see transition.go).
func (g *Registry) Pause(id string, memory bool) (*envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	if t := e.busy; t != nil {
		if t.kind == transitionResume {
			return nil, ErrAlreadyPaused
		}
		g.waitLocked(t)
		return t.m, t.err
	}
	if e.rec.State == Paused {
		return nil, ErrAlreadyPaused
	}
	t := g.beginLocked(e, transitionPause)
	g.pauseLocked(e, memory)
	e.m.AddLog("info", "Sandbox paused", nil)
	g.holdLocked()
	g.endLocked(e, t, e.rec.clone(), e.m, nil)
	return e.m, nil
}

// Connect extends a running sandbox's end by timeout (when set), or resumes
// a paused one for timeout (resumeTimeout when unset); resumed says which.
// memory false cold-boots a paused sandbox from its files (see resumeLocked);
// it changes nothing for a running one. During a pause it waits for it, and
// during a resume it answers with that resume's sandbox (see transition.go).
func (g *Registry) Connect(id string, timeout *time.Duration, resumeTimeout time.Duration, memory bool) (rec Record, m *envd.Machine, resumed bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		e, err := g.lookupLocked(id)
		if err != nil {
			return Record{}, nil, false, err
		}
		if t := e.busy; t != nil {
			g.waitLocked(t)
			if t.kind == transitionResume {
				return t.rec.clone(), t.m, t.err == nil, t.err
			}
			continue // the pause ended: resume what it paused
		}
		if e.rec.State == Running {
			if timeout != nil {
				g.extendLocked(e, *timeout)
			}
			return e.rec.clone(), e.m, false, nil
		}
		if timeout != nil {
			resumeTimeout = *timeout
		}
		if err := g.coldBootRefusedLocked(e, memory); err != nil {
			return Record{}, nil, false, err
		}
		if msg := g.callbacks.Admit(g.runningLocked()); msg != "" {
			return Record{}, nil, false, LimitError{msg}
		}
		rec, err := g.resumeHeldLocked(e, resumeTimeout, memory, nil)
		return rec, e.m, err == nil, err
	}
}

// Resume resumes a paused sandbox for timeout (the deprecated route, which
// may also change autoPause); memory false cold-boots it from its files.
// During a pause it waits for it, and during a resume it answers with that
// resume's sandbox (see transition.go).
func (g *Registry) Resume(id string, timeout time.Duration, autoPause *bool, memory bool) (Record, *envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		e, err := g.lookupLocked(id)
		if err != nil {
			return Record{}, nil, err
		}
		if t := e.busy; t != nil {
			g.waitLocked(t)
			if t.kind == transitionResume {
				return t.rec.clone(), t.m, t.err
			}
			continue // the pause ended: resume what it paused
		}
		if e.rec.State == Running {
			return Record{}, nil, ErrAlreadyRunning
		}
		if err := g.coldBootRefusedLocked(e, memory); err != nil {
			return Record{}, nil, err
		}
		if msg := g.callbacks.Admit(g.runningLocked()); msg != "" {
			return Record{}, nil, LimitError{msg}
		}
		rec, err := g.resumeHeldLocked(e, timeout, memory, autoPause)
		return rec, e.m, err
	}
}

// resumeHeldLocked resumes a paused sandbox at the end of its transition, setting autoPause
// when given. A kill meanwhile leaves nothing to resume; envd traffic that resumed it
// meanwhile (autoResume) leaves it running as it is.
func (g *Registry) resumeHeldLocked(e *entry, timeout time.Duration, memory bool, autoPause *bool) (Record, error) {
	t := g.beginLocked(e, transitionResume)
	g.holdLocked()
	var err error
	switch {
	case g.byID[e.rec.ID] != e:
		err = fmt.Errorf("%w: %s", ErrNotFound, e.rec.ID)
	case e.rec.State == Paused:
		if autoPause != nil {
			e.rec.AutoPause = *autoPause
		}
		g.resumeLocked(e, timeout, memory)
		e.m.AddLog("info", "Sandbox resumed", nil)
	}
	rec := e.rec.clone()
	g.endLocked(e, t, rec, e.m, err)
	if err != nil {
		return Record{}, err
	}
	return rec, nil
}

// AutoResume returns the record and machine of a sandbox that can serve traffic, resuming a
// paused one that has autoResume (and kept its memory) for its ResumeTimeout when may allows
// it; ErrNotFound when the sandbox is gone or does not resume on traffic, ErrResumeDenied when
// may refuses, a LimitError at the concurrency cap. may sees the paused sandbox's record, with
// the lock held.
func (g *Registry) AutoResume(id string, may func(Record) bool) (rec Record, m *envd.Machine, resumed bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.byID[id]
	if e == nil {
		return Record{}, nil, false, ErrNotFound
	}
	if e.rec.State == Paused {
		if !e.rec.AutoResume || !e.rec.PausedByMemory {
			return Record{}, nil, false, ErrNotFound
		}
		if !may(e.rec.clone()) {
			return Record{}, nil, false, ErrResumeDenied
		}
		if msg := g.callbacks.Admit(g.runningLocked()); msg != "" {
			return Record{}, nil, false, LimitError{msg}
		}
		g.resumeLocked(e, e.rec.ResumeTimeout, true)
		resumed = true
	}
	return e.rec.clone(), e.m, resumed, nil
}

// Egress is what a network update replaces as a whole; the rest of the
// network settings stay.
type Egress struct {
	AllowOut, DenyOut []string
	Rules             map[string][]egress.Rule
	Proxy             *egress.Proxy
	AllowInternet     *bool
}

// UpdateNetwork replaces a running sandbox's egress settings.
func (g *Registry) UpdateNetwork(id string, eg Egress, extra map[string]any) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.lookupLocked(id)
	if err != nil {
		return err
	}
	if e.rec.State != Running {
		return NotRunningError{e.rec.State}
	}
	n := &e.rec.Network
	n.AllowOut, n.DenyOut, n.Rules, n.EgressProxy = eg.AllowOut, eg.DenyOut, eg.Rules, eg.Proxy
	e.rec.AllowInternet = eg.AllowInternet
	g.event(e, EvUpdated, extra)
	return nil
}

// SetHTTPSPorts replaces the HTTPS ports of a sandbox, running or paused. E2B's API has no way
// to change them after create; this is the emulator's stand-in for a change made outside the
// API, so tests can see a client notice it.
func (g *Registry) SetHTTPSPorts(id string, ports []uint32) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.lookupLocked(id)
	if err != nil {
		return err
	}
	e.rec.Network.HTTPSPorts = append([]uint32(nil), ports...)
	return nil
}

// Snapshot runs capture on a running sandbox with the lock held (so it
// cannot pause or die meanwhile) and records the checkpoint with the extra
// capture returns.
func (g *Registry) Snapshot(id string, capture func(rec Record, m *envd.Machine) (map[string]any, error)) (*envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.runningEntryLocked(id)
	if err != nil {
		return nil, err
	}
	extra, err := capture(e.rec.clone(), e.m)
	if err != nil {
		return nil, err
	}
	g.event(e, EvCheckpointed, extra)
	return e.m, nil
}

// Kill forgets the sandbox; the caller destroys the machine.
func (g *Registry) Kill(id string) (*envd.Machine, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	g.removeLocked(e)
	return e.m, nil
}

// Expire runs the end of a running sandbox's timeout now: a pause with
// autoPause, else a kill. It reports whether it killed.
func (g *Registry) Expire(id string) (killed bool, m *envd.Machine, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, err := g.lookupLocked(id)
	if err != nil {
		return false, nil, err
	}
	if e.rec.State != Running {
		return false, nil, NotRunningError{e.rec.State}
	}
	return g.expireLocked(e), e.m, nil
}

func (g *Registry) runningEntryLocked(id string) (*entry, error) {
	e, err := g.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	if e.rec.State != Running {
		return nil, ErrNotFound // E2B answers 404 for a paused sandbox here
	}
	return e, nil
}

func (g *Registry) extendLocked(e *entry, d time.Duration) {
	end := time.Now().UTC().Add(d)
	if limit := e.rec.StartedAt.Add(g.callbacks.MaxLifetime); end.After(limit) {
		end = limit
	}
	if end.After(e.rec.EndAt) {
		e.rec.EndAt = end
		g.armLocked(e)
	}
}

func (g *Registry) pauseLocked(e *entry, memory bool) {
	e.rec.State = Paused
	e.rec.EndAt = time.Now().UTC()
	e.rec.PausedByMemory = memory
	g.event(e, EvPaused, nil)
	g.stopTimerLocked(e)
	if memory {
		e.m.Freeze()
	} else {
		e.m.Halt()
	}
}

// coldBootRefusedLocked is E2B's refusal of memory false where the capability is off: only for
// a sandbox paused with its memory (one paused without it cold-boots anyway, a no-op E2B allows).
func (g *Registry) coldBootRefusedLocked(e *entry, memory bool) error {
	if !memory && e.rec.PausedByMemory && g.callbacks.DiskOnlyResumeOff {
		return ErrDiskOnlyResumeOff
	}
	return nil
}

// resumeLocked runs a paused sandbox again. With memory, and a pause that kept it, its processes
// continue; otherwise it cold-boots: every process is gone (the frozen ones are killed, as a VM
// booted from its disk never had them) and only its files remain.
func (g *Registry) resumeLocked(e *entry, timeout time.Duration, memory bool) {
	now := time.Now().UTC()
	e.rec.State = Running
	e.rec.StartedAt = now
	e.rec.EndAt = now.Add(timeout)
	e.rec.ExecutionID = ids.UUID()
	g.event(e, EvResumed, nil)
	switch {
	case e.rec.PausedByMemory && memory:
		e.m.Thaw()
	case e.rec.PausedByMemory:
		e.m.Halt()
		e.m.Reboot()
	default:
		e.m.Reboot()
	}
	g.armLocked(e)
}

// removeLocked forgets the sandbox; the caller destroys its machine outside the lock.
func (g *Registry) removeLocked(e *entry) {
	if g.byID[e.rec.ID] == e {
		g.event(e, EvKilled, nil)
	}
	delete(g.byID, e.rec.ID)
	g.stopTimerLocked(e)
}

// expireLocked pauses (autoPause) or removes the sandbox; it reports whether it removed it.
func (g *Registry) expireLocked(e *entry) bool {
	if e.rec.AutoPause {
		g.pauseLocked(e, e.rec.AutoPauseKeeps)
		return false
	}
	g.removeLocked(e)
	return true
}

// armLocked (re)starts the TTL timer for the sandbox's end.
func (g *Registry) armLocked(e *entry) {
	g.stopTimerLocked(e)
	gen := e.gen
	d := time.Until(e.rec.EndAt)
	if d < 0 {
		d = 0
	}
	e.timer = time.AfterFunc(d, func() { g.onTimer(e, gen) })
}

func (g *Registry) stopTimerLocked(e *entry) {
	if e.timer != nil {
		e.timer.Stop()
	}
	e.gen++
}

func (g *Registry) onTimer(e *entry, gen int) {
	g.mu.Lock()
	if g.byID[e.rec.ID] != e || e.gen != gen || e.rec.State != Running {
		g.mu.Unlock()
		return
	}
	if d := time.Until(e.rec.EndAt); d > 0 { // the end moved later meanwhile
		e.timer = time.AfterFunc(d, func() { g.onTimer(e, gen) })
		g.mu.Unlock()
		return
	}
	killed := g.expireLocked(e)
	g.mu.Unlock()
	if g.callbacks.Expired != nil {
		g.callbacks.Expired(e.m, killed)
	}
}
