package e2b

import (
	"context"
	"sync"
	"time"
)

// Learning constants of the create pacer.
const (
	// paceMargin keeps creates a little slower than the rate E2B showed, so
	// that one sent a hair early (network jitter) is not refused: E2B's
	// bucket may hold no spare create at all (a burst of one).
	paceMargin = 1.03
	// matureRun is how many paced creates E2B must let through while it
	// keeps refusing others before their spacing is taken as its rate.
	matureRun = 4
	// Before E2B confirmed a pace by refusing a faster one, the pacer
	// doubles its pace after startProbe creates in a row were let through
	// (its first guess may be far too slow); afterwards it tries
	// probeFactor faster after calmProbe.
	startProbe  = 5
	calmProbe   = 30
	probeFactor = 0.95
	// recentWindow is the window of the first guess: E2B states its plans'
	// rates per second.
	recentWindow = time.Second
)

// createPacer spaces sandbox creates so that they stay within the team's
// create rate (E2B: 1 per second on Hobby, 5 on Pro) instead of being
// refused with 429. Every create of a process for one team waits its turn
// here, first come first served. The spacing is stated (Config.CreateRate)
// or learned from E2B's refusals:
//
//   - Until E2B refuses a create, creates go unpaced (or at the stated rate).
//   - The first refusal of a run of refusals guesses that E2B lets through
//     per second as many creates as it let through in the second before
//     (counting the answers as they come back), or, when E2B sends a
//     Retry-After above 1 (whole seconds, rounded down), one create per
//     that many seconds and one more, when that is slower.
//   - While E2B refuses about one paced create for every two it lets
//     through, it lets them through as fast as it allows: their spacing
//     measures its rate once matureRun of them were counted, and slows the
//     pace when slower (rarer refusals of creates sent at about E2B's rate
//     come from jitter).
//   - Creates let through in a row make the pacer try faster: doubling
//     until E2B first refuses (a guess may be far too slow), then by
//     probeFactor; a refusal starts the learning again.
//
// A guessed pace is paceMargin slower than the rate guessed; no pace is
// faster than a stated rate. A refused create waits its turn again; after
// a lone refusal (a create that arrived a hair early) the next turn comes a
// quarter slot later rather than a whole one.
type createPacer struct {
	gate chan struct{} // held by the create whose turn it is

	mu        sync.Mutex
	changed   chan struct{} // closed when the pace changes
	interval  time.Duration // between two creates; 0 = unpaced
	floor     time.Duration // the stated rate's spacing: never faster
	last      time.Time     // the last create sent (or refused)
	refused   time.Time     // send time of the last refusal
	passed    time.Time     // send time of the last paced create let through
	recent    []sentCreate  // creates let through in the last while
	run       refusalRun
	calm      int  // paced creates sent after the last refusal and let through
	streak    int  // refusals since a create sent after the last one was let through
	confirmed bool // E2B refused a pace faster than a guess, or one was measured
}

type sentCreate struct {
	at    time.Time
	paced bool
}

// refusalRun is a stretch in which E2B kept refusing some creates.
type refusalRun struct {
	start    time.Time     // send time of the refusal that began it
	admitted int           // paced creates sent after start that E2B let through
	first    time.Time     // send time of the earliest of them
	lastSent time.Time     // send time of the latest of them
	guessN   int           // creates let through that the first guess counts
	burst    time.Time     // send time of the earliest unpaced create refused
	refusals int           // paced creates refused during the run
	measured bool          // the pace comes from the run's measurement
	retry    time.Duration // the longest Retry-After of the run
}

func newCreatePacer() *createPacer {
	return &createPacer{gate: make(chan struct{}, 1), changed: make(chan struct{})}
}

// state applies a stated rate (creates per second); the slowest stated rate wins.
func (p *createPacer) state(perSecond float64) {
	if perSecond <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.floor = max(p.floor, time.Duration(float64(time.Second)/perSecond))
	p.setIntervalLocked(p.interval)
}

// Interval is the spacing in force.
func (p *createPacer) Interval() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.interval
}

func (p *createPacer) setIntervalLocked(d time.Duration) {
	d = max(d, p.floor)
	if d != p.interval {
		p.interval = d
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

// claim lets the create whose turn it is go at now when its slot has come;
// otherwise it says how long to wait (the pace may change meanwhile).
func (p *createPacer) claim(now time.Time) (ok, paced bool, wait time.Duration, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.interval <= 0 {
		return true, false, 0, nil
	}
	if next := p.last.Add(p.interval); now.Before(next) {
		return false, true, next.Sub(now), p.changed
	}
	p.last = now
	return true, true, 0, nil
}

// wait blocks until notBefore, then until this create's turn and slot; it
// says whether the create is paced.
func (p *createPacer) wait(ctx context.Context, notBefore time.Time) (bool, error) {
	if d := time.Until(notBefore); d > 0 {
		if err := sleepCtx(ctx, d); err != nil {
			return false, err
		}
	}
	select {
	case p.gate <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-p.gate }()
	for {
		ok, paced, d, changed := p.claim(time.Now())
		if ok {
			return paced, ctx.Err()
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-changed:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		}
	}
}

// admitted records a create sent at sent that E2B's rate limit let
// through; paced says it waited for a slot.
func (p *createPacer) admitted(sent time.Time, paced bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recent = append(p.recent, sentCreate{sent, paced})
	p.trimRecentLocked(sent)
	if !p.run.start.IsZero() {
		if paced && sent.After(p.run.start) {
			p.run.admitted++
			p.run.lastSent = maxTime(p.run.lastSent, sent)
			if p.run.first.IsZero() || sent.Before(p.run.first) {
				p.run.first = sent
			}
		}
		if p.run.guessCounts(sentCreate{sent, paced}) {
			p.run.guessN++
			if !p.run.measured {
				p.setIntervalLocked(p.run.guess()) // answers of the burst before the refusal keep coming
			}
		}
	}
	if sent.After(p.refused) {
		p.streak = 0
	}
	if paced {
		p.passed = maxTime(p.passed, sent)
	}
	if paced && sent.After(p.refused) {
		p.calm++
		p.probeLocked()
	}
}

// probeLocked tries a faster pace after creates let through in a row.
func (p *createPacer) probeLocked() {
	if p.interval <= 0 || (p.confirmed && p.calm < calmProbe) || (!p.confirmed && p.calm < startProbe) {
		return
	}
	factor := 0.5
	if p.confirmed {
		factor = probeFactor
	}
	p.calm = 0
	p.run = refusalRun{} // learning starts again at the next refusal
	p.setIntervalLocked(time.Duration(float64(p.interval) * factor))
}

// throttled records a create sent at sent that E2B refused with 429 for
// its rate, with the answer's Retry-After (0 when none); paced says it
// waited for a slot.
func (p *createPacer) throttled(sent time.Time, paced bool, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run.start.IsZero() {
		if p.interval > 0 {
			p.confirmed = true // a probe went too far: the pace before it was right
		}
		p.run = refusalRun{start: sent}
		for _, c := range p.recent {
			if p.run.guessCounts(c) {
				p.run.guessN++
			}
		}
	}
	p.calm = 0
	p.refused = maxTime(p.refused, sent)
	p.run.retry = max(p.run.retry, retryAfter)
	if paced {
		p.run.refusals++
	}
	// E2B let the run's paced creates through one spacing apart while it
	// refused about as many others: their spacing is its rate. It only
	// slows the pace (a faster one is found by probing), and only when E2B
	// refused that often: a few refusals of creates sent at about its rate
	// come from jitter, and the time they cost is in the spacing too.
	if span := p.run.lastSent.Sub(p.run.first); p.run.admitted >= matureRun && span >= recentWindow {
		p.run.measured, p.confirmed = true, true
		if 2*p.run.refusals >= p.run.admitted {
			p.setIntervalLocked(max(p.interval, span/time.Duration(p.run.admitted-1)))
		}
	} else if !p.run.measured {
		p.setIntervalLocked(p.run.guess())
	}
	if !paced {
		// Creates sent before there was a pace (a burst): E2B lets the
		// next one through within a slot of the earliest it refused.
		if p.run.burst.IsZero() || sent.Before(p.run.burst) {
			p.run.burst = sent
		}
		p.last = maxTime(p.last, p.run.burst)
		return
	}
	// The next create waits a quarter slot after a refusal that follows
	// creates let through (this one was likely sent a hair early, network
	// jitter), a whole slot once refusals repeat, and at least a slot after
	// the last create let through (a faster pace tried too early).
	p.streak++
	wait := time.Duration(float64(p.interval) * min(1, float64(p.streak)/4))
	next := maxTime(sent.Add(wait), p.passed.Add(p.interval))
	if last := next.Add(-p.interval); !p.last.After(sent) || last.After(p.last) {
		p.last = last // no create was sent since this one: its slot comes again sooner
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// guessCounts says whether the first guess of the run counts a create
// let through: E2B lets through per second as many creates as it let
// through in the second before the run began, and the unpaced ones sent
// with it (their answers may come after the refusal's).
func (r *refusalRun) guessCounts(c sentCreate) bool {
	before := !c.at.After(r.start) && r.start.Sub(c.at) < recentWindow
	return before || (!c.paced && c.at.Sub(r.start) < recentWindow)
}

// guess is the run's first guess of the spacing, with the margin.
func (r *refusalRun) guess() time.Duration {
	spacing := recentWindow / time.Duration(max(r.guessN, 1))
	if r.retry > time.Second {
		// E2B rounds Retry-After down to whole seconds (and sends at least
		// 1, so a 1 says nothing); the longest of a run is about the
		// spacing, since one refusal soon follows a create let through.
		spacing = max(spacing, r.retry+time.Second)
	}
	return time.Duration(float64(spacing) * paceMargin)
}

// trimRecentLocked keeps the creates let through within two windows of now
// (answers arrive out of the order of sending).
func (p *createPacer) trimRecentLocked(now time.Time) {
	kept := p.recent[:0]
	for _, c := range p.recent {
		if now.Sub(c.at) <= 2*recentWindow {
			kept = append(kept, c)
		}
	}
	p.recent = kept
}

// logPace tells the logger when a refusal changed the pace of creates.
func (c *Client) logPace(ctx context.Context, before time.Duration) {
	if after := c.limits.pacer.Interval(); after != before && c.cfg.Logger != nil {
		c.cfg.Logger.Log(ctx, "info", "E2B refused a sandbox create for its rate: creates are paced", map[string]any{
			"op": "create sandbox", "interval_ms": after.Milliseconds(), "previous_interval_ms": before.Milliseconds(),
		})
	}
}
