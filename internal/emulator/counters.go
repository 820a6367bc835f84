package emulator

import "sync"

// Counters are observations for tests (GET /_emulator/counters).
type Counters struct {
	Requests         map[string]int `json:"requests"`         // by route key
	SandboxesAlive   int            `json:"sandboxesAlive"`   // running + paused
	SandboxesCreated int            `json:"sandboxesCreated"` // ever
	EnvdAPIKeySeen   int            `json:"envdApiKeySeen"`   // envd requests that carried X-API-Key
	FaultsInjected   int            `json:"faultsInjected"`   // requests failed, dropped or dropped after a create
	WebhookDrops     int            `json:"webhookDrops"`     // webhook deliveries dropped because the queue was full
}

// counterState holds the counters under a lock of their own: counting never
// waits on the sandboxes' lock.
type counterState struct {
	mu sync.Mutex
	c  Counters
}

func (cs *counterState) add(change func(c *Counters)) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.c.Requests == nil {
		cs.c.Requests = map[string]int{}
	}
	change(&cs.c)
}

func (cs *counterState) snapshot() Counters {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.c
	c.Requests = make(map[string]int, len(cs.c.Requests))
	for k, v := range cs.c.Requests {
		c.Requests[k] = v
	}
	return c
}

func (cs *counterState) reset() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.c = Counters{Requests: map[string]int{}}
}

func (s *Server) count(key string) {
	s.counters.add(func(c *Counters) { c.Requests[key]++ })
}

// Counters returns a copy of the request counters and sandbox figures.
func (s *Server) Counters() Counters {
	c := s.counters.snapshot()
	c.SandboxesAlive = s.cp.Sandboxes().Count()
	return c
}

// ResetCounters zeroes the request counters (SandboxesCreated and
// EnvdAPIKeySeen included).
func (s *Server) ResetCounters() { s.counters.reset() }
