package emulator

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Faults describes injected failures. Set them with SetFaults or
// PUT /_emulator/faults (same JSON).
type Faults struct {
	Latency         time.Duration `json:"latency"`         // added to every matching request, before handling
	ErrorRate       float64       `json:"errorRate"`       // 0..1, fraction of matching requests failed
	Statuses        []int         `json:"statuses"`        // chosen among these (default 500); 429 carries Retry-After: 1
	DropRate        float64       `json:"dropRate"`        // fraction of matching requests whose connection is dropped
	DropAfterCreate float64       `json:"dropAfterCreate"` // fraction of sandbox creates that take effect, then drop the connection
	Routes          []string      `json:"routes"`          // route keys; "envd" matches every envd route; empty = all but the health checks
	Seed            int64         `json:"seed"`
}

// Counters are observations for tests (GET /_emulator/counters).
type Counters struct {
	Requests         map[string]int `json:"requests"`         // by route key
	SandboxesAlive   int            `json:"sandboxesAlive"`   // running + paused
	SandboxesCreated int            `json:"sandboxesCreated"` // ever
	EnvdAPIKeySeen   int            `json:"envdApiKeySeen"`   // envd requests that carried X-API-Key
	FaultsInjected   int            `json:"faultsInjected"`   // requests failed, dropped or dropped after a create
	WebhookDrops     int            `json:"webhookDrops"`     // webhook deliveries dropped because the queue was full
}

// UnmarshalJSON accepts latency as nanoseconds (Go's encoding) or as a
// duration string such as "250ms".
func (f *Faults) UnmarshalJSON(b []byte) error {
	type plain Faults
	var raw struct {
		plain
		Latency json.RawMessage `json:"latency"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = Faults(raw.plain)
	f.Latency = 0
	if len(raw.Latency) == 0 || string(raw.Latency) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw.Latency, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("latency: %w", err)
		}
		f.Latency = d
		return nil
	}
	var ns int64
	if err := json.Unmarshal(raw.Latency, &ns); err != nil {
		return fmt.Errorf("latency: want nanoseconds or a duration string: %w", err)
	}
	f.Latency = time.Duration(ns)
	return nil
}

type faultState struct {
	mu  sync.Mutex
	f   Faults
	rng *rand.Rand
}

func (fs *faultState) reset(f Faults) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.f = f
	seed := f.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	fs.rng = rand.New(rand.NewSource(seed)) //nolint:gosec // fault injection needs no crypto randomness
}

// SetFaults replaces the injected faults; the zero value disables them.
func (s *Server) SetFaults(f Faults) { s.faults.reset(f) }

// faultDecision is what to do with one request.
type faultDecision struct {
	latency     time.Duration
	status      int
	drop        bool
	dropAfterOK bool
}

func routeMatches(routes []string, key string) bool {
	if len(routes) == 0 {
		return key != "envd GET /health" // health checks are exempt unless named
	}
	for _, r := range routes {
		if r == key || strings.HasPrefix(key, r+" ") {
			return true
		}
	}
	return false
}

func (fs *faultState) decide(key string, isCreate bool) faultDecision {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.f
	if !routeMatches(f.Routes, key) {
		return faultDecision{}
	}
	d := faultDecision{latency: f.Latency}
	if f.DropRate > 0 && fs.rng.Float64() < f.DropRate {
		d.drop = true
		return d
	}
	if f.ErrorRate > 0 && fs.rng.Float64() < f.ErrorRate {
		d.status = http.StatusInternalServerError
		if len(f.Statuses) > 0 {
			d.status = f.Statuses[fs.rng.Intn(len(f.Statuses))]
		}
		return d
	}
	if isCreate && f.DropAfterCreate > 0 && fs.rng.Float64() < f.DropAfterCreate {
		d.dropAfterOK = true
	}
	return d
}

// applyFaults runs the injected latency and failures for one request. It
// returns false when the request was answered (or dropped) by a fault.
func (s *Server) applyFaults(w http.ResponseWriter, r *http.Request, key string, isCreate bool) (ok, dropAfter bool) {
	d := s.faults.decide(key, isCreate)
	if d.drop || d.status != 0 || d.dropAfterOK {
		s.mu.Lock()
		s.counters.FaultsInjected++
		s.mu.Unlock()
	}
	if d.latency > 0 {
		t := time.NewTimer(d.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false, false
		}
	}
	if d.drop {
		dropConnection(w)
		return false, false
	}
	if d.status != 0 {
		writeFaultStatus(w, d.status)
		return false, false
	}
	return true, d.dropAfterOK
}

func writeFaultStatus(w http.ResponseWriter, status int) {
	msg := http.StatusText(status)
	switch status {
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "1")
		w.Header().Set("RateLimit-Limit", "20000")
		w.Header().Set("RateLimit-Remaining", "0")
		w.Header().Set("RateLimit-Reset", "1")
		msg = "Rate limit exceeded"
	case http.StatusInternalServerError:
		msg = "Internal server error"
	case http.StatusServiceUnavailable:
		msg = "Service unavailable"
	}
	writeError(w, status, msg)
}

func (s *Server) count(key string) {
	s.mu.Lock()
	s.counters.Requests[key]++
	s.mu.Unlock()
}

// Counters returns a copy of the request counters and sandbox figures.
func (s *Server) Counters() Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counters
	c.Requests = make(map[string]int, len(s.counters.Requests))
	for k, v := range s.counters.Requests {
		c.Requests[k] = v
	}
	c.SandboxesAlive = len(s.sandboxes)
	return c
}

// ResetCounters zeroes the request counters (SandboxesCreated and
// EnvdAPIKeySeen included).
func (s *Server) ResetCounters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetCountersLocked()
}

func (s *Server) resetCountersLocked() {
	s.counters = Counters{Requests: map[string]int{}}
}
