package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"
)

// Limits.
//
// Off by default; Options.Limits, SetLimits, the admin API or the
// command's -max-concurrent-sandboxes, -create-rate, -create-burst and
// -api-rate flags turn them on (see Limits). As in E2B's API: once the API
// key is accepted, a request over a rate gets 429 "Rate limit exceeded"
// with RateLimit-* headers and Retry-After, before it does anything; the
// concurrency cap counts running sandboxes (paused ones hold no place) and
// refuses a create or a resume (connect or resume of a paused sandbox) over
// it with E2B's 429 message and Retry-After: 1 (the newest spec gives every
// 429 one), and each fork over it with that 429 in the fork's entry; a fork
// asking for as many sandboxes as the cap, or more, gets E2B's 400. Not modelled:
// the per-IP rate of sandbox operations (envd), and the cap on a paused
// sandbox's auto-resume by traffic.

// Limits are the limits E2B puts on a team, off when zero. Set them with
// Options.Limits, SetLimits or PUT /_emulator/limits (same JSON).
//
// What E2B does, from its API's source (e2b-dev/infra): a rate-limited route
// answers 429 {"code":429,"message":"Rate limit exceeded"} with
// RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and Retry-After
// (whole seconds, at least 1), from a GCRA bucket per team and route; the
// concurrency cap counts the team's running sandboxes and the ones starting
// (paused ones do not count) and answers a create, a resume or one fork over
// it 429 "you have reached the maximum number of concurrent E2B sandboxes
// (N). If you need more, please visit 'https://e2b.dev/docs/billing'",
// without Retry-After in the releases read; the newest spec gives every 429
// one, so the emulator sends Retry-After: 1 with it.
//
// Guesses: E2B configures its buckets per route and does not publish them;
// the emulator gives both create routes (/sandboxes and /v2/sandboxes) one
// bucket, the plan's "creates per second", with a burst of one second's
// worth unless CreateBurst says otherwise, and counts every control-plane
// request against the management rate, its burst being the whole allowance.
type Limits struct {
	// MaxConcurrentSandboxes caps the running sandboxes (Hobby 20, Pro 100).
	MaxConcurrentSandboxes int `json:"maxConcurrentSandboxes"`
	// CreateRate is sandbox creates per second (Hobby 1, Pro 5).
	CreateRate float64 `json:"createRate"`
	// CreateBurst is how many creates may go at once; 0 = ceil(CreateRate).
	CreateBurst int `json:"createBurst"`
	// APIRequests per APIPeriod are let through across the control plane
	// (E2B: 20,000 per 30 s). APIPeriod defaults to 30 s.
	APIRequests int           `json:"apiRequests"`
	APIPeriod   time.Duration `json:"apiPeriod"`
}

// LimitRefusals counts the requests the limits refused (GET /_emulator/limits/refused).
type LimitRefusals struct {
	CreateRate   int `json:"createRate"`   // creates over the create rate
	APIRate      int `json:"apiRate"`      // requests over the management rate
	SandboxLimit int `json:"sandboxLimit"` // creates, resumes and forks over the concurrency cap
}

// UnmarshalJSON accepts apiPeriod as nanoseconds or a duration string ("30s").
func (l *Limits) UnmarshalJSON(b []byte) error {
	type plain Limits
	var raw struct {
		plain
		APIPeriod json.RawMessage `json:"apiPeriod"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*l = Limits(raw.plain)
	var err error
	l.APIPeriod, err = durationJSON("apiPeriod", raw.APIPeriod)
	return err
}

// Validate refuses negative or non-finite limits.
func (l Limits) Validate() error {
	switch {
	case l.MaxConcurrentSandboxes < 0:
		return errors.New("maxConcurrentSandboxes must not be negative")
	case l.CreateRate < 0 || math.IsNaN(l.CreateRate) || math.IsInf(l.CreateRate, 0):
		return errors.New("createRate must be a number of creates per second, not negative")
	case l.CreateBurst < 0 || l.APIRequests < 0 || l.APIPeriod < 0:
		return errors.New("createBurst, apiRequests and apiPeriod must not be negative")
	}
	return nil
}

func (l Limits) withDefaults() Limits {
	if l.CreateRate > 0 && l.CreateBurst == 0 {
		l.CreateBurst = max(1, int(math.Ceil(l.CreateRate)))
	}
	if l.APIRequests > 0 && l.APIPeriod == 0 {
		l.APIPeriod = 30 * time.Second
	}
	return l
}

// limitState holds the limits, their buckets and what they refused. It has
// its own lock: the buckets are consulted before the registry's is taken.
type limitState struct {
	mu      sync.Mutex
	l       Limits
	create  *gcra
	api     *gcra
	refused LimitRefusals
	now     func() time.Time // tests set a clock; nil = time.Now
}

func (ls *limitState) set(l Limits) {
	l = l.withDefaults()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.l, ls.create, ls.api = l, nil, nil
	if l.CreateRate > 0 {
		ls.create = &gcra{rate: l.CreateRate, period: time.Second, burst: l.CreateBurst}
	}
	if l.APIRequests > 0 {
		ls.api = &gcra{rate: float64(l.APIRequests), period: l.APIPeriod, burst: l.APIRequests}
	}
}

func (ls *limitState) maxSandboxes() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.l.MaxConcurrentSandboxes
}

// SetLimits replaces the team's limits; the zero value turns them off. The
// rate buckets start full. It panics on limits that fail Validate (a
// mistake in the calling test).
func (s *Server) SetLimits(l Limits) {
	if err := l.Validate(); err != nil {
		panic("emulator: SetLimits: " + err.Error())
	}
	s.limits.set(l)
}

// Limits returns the limits in force, defaults filled in.
func (s *Server) Limits() Limits { return s.limits.current() }

func (ls *limitState) current() Limits {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.l
}

// LimitRefusals returns how many requests the limits refused.
func (s *Server) LimitRefusals() LimitRefusals { return s.limits.refusals() }

func (ls *limitState) refusals() LimitRefusals {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.refused
}

// allowRate runs the management rate and, for a create, the create rate,
// as E2B's middleware does after the API key was checked. It answers the
// refusal itself and returns false then.
func (s *Server) allowRate(w http.ResponseWriter, isCreate bool) bool {
	return s.limits.allow(w, isCreate)
}

func (ls *limitState) allow(w http.ResponseWriter, isCreate bool) bool {
	ls.mu.Lock()
	now := time.Now()
	if ls.now != nil {
		now = ls.now()
	}
	for _, b := range []struct {
		g       *gcra
		on      bool
		counter *int
	}{{ls.api, true, &ls.refused.APIRate}, {ls.create, isCreate, &ls.refused.CreateRate}} {
		if b.g == nil || !b.on {
			continue
		}
		res := b.g.allow(now)
		res.writeHeaders(w.Header(), b.g.burst)
		if !res.allowed {
			*b.counter++
			ls.mu.Unlock()
			writeError(w, http.StatusTooManyRequests, "Rate limit exceeded")
			return false
		}
	}
	ls.mu.Unlock()
	return true
}

// sandboxLimitMessage is E2B's answer to a start over the concurrency cap.
func sandboxLimitMessage(limit int) string {
	return fmt.Sprintf("you have reached the maximum number of concurrent E2B sandboxes (%d). "+
		"If you need more, please visit 'https://e2b.dev/docs/billing'", limit)
}

// admit returns E2B's message when starting one more sandbox, with running
// ones already, would go over the concurrency cap, and "" when it may
// start. E2B counts running sandboxes; paused ones hold no place.
func (s *Server) admit(running int) string {
	limit := s.limits.maxSandboxes()
	if limit <= 0 || running < limit {
		return ""
	}
	s.limits.refuseSandbox()
	return sandboxLimitMessage(limit)
}

func (ls *limitState) refuseSandbox() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.refused.SandboxLimit++
}

// forkCountOverLimit is E2B's 400 for a fork asking for as many sandboxes
// as the cap or more: the source keeps its place, so they could never all run.
func (s *Server) forkCountOverLimit(count int) string {
	limit := s.limits.maxSandboxes()
	if limit <= 0 || count < limit {
		return ""
	}
	return fmt.Sprintf("Count must be lower than the maximum number of concurrent sandboxes (%d)", limit)
}
