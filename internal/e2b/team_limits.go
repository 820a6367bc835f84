package e2b

import (
	"crypto/sha256"
	"sync"
	"time"
)

// teamLimits is what a process knows about one team's limits: the pacing
// of its creates and of its other API requests, and the sandboxes it starts
// and stops. Every Client of the
// process for the same API and key shares it, so that all the resources of
// one provider process pace themselves together.
type teamLimits struct {
	pacer *createPacer // sandbox creates, within E2B's create rate
	api   *createPacer // every other control-plane request, within E2B's API rate
	slots *sandboxSlots
	// forkTurn lets one fork at a time run (see fork_lost.go): a fork has no token of its
	// own, so two at once could not tell their sandboxes apart behind lost answers.
	forkTurn chan struct{}
}

var teams = struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*teamLimits
}{m: map[[sha256.Size]byte]*teamLimits{}}

// limitsFor returns the process's limits of the team behind apiURL and
// apiKey (the key is kept only as part of a hash).
func limitsFor(apiURL, apiKey string) *teamLimits {
	key := sha256.Sum256([]byte(apiURL + "\x00" + apiKey))
	teams.mu.Lock()
	defer teams.mu.Unlock()
	t := teams.m[key]
	if t == nil {
		t = &teamLimits{pacer: newCreatePacer(), api: newCreatePacer(), slots: newSandboxSlots(), forkTurn: make(chan struct{}, 1)}
		teams.m[key] = t
	}
	return t
}

// sandboxSlots follows the places this process takes and frees under the
// team's concurrent-sandbox limit: the sandboxes it started, the deletions
// and pauses under way (each frees a place when done) and the starts that
// wait for a place.
type sandboxSlots struct {
	mu       sync.Mutex
	changed  chan struct{} // closed at every change
	stopping int           // deletions and pauses under way
	freed    uint64        // deletions and pauses done
	lastStop time.Time     // when one last began or ended
	started  int           // sandboxes started: created, resumed, forked
	waiting  int           // starts refused at the limit, not settled yet
}

func newSandboxSlots() *sandboxSlots { return &sandboxSlots{changed: make(chan struct{})} }

func (s *sandboxSlots) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// stop marks a deletion or pause under way; call the result with whether it
// took effect.
func (s *sandboxSlots) stop() func(done bool) {
	s.mu.Lock()
	s.stopping++
	s.lastStop = time.Now()
	s.notifyLocked()
	s.mu.Unlock()
	return func(done bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stopping--
		s.lastStop = time.Now()
		if done {
			s.freed++
		}
		s.notifyLocked()
	}
}

// freedCount is how many deletions and pauses were done so far: a start
// sent after reading it and refused at the limit waits for a later one.
func (s *sandboxSlots) freedCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freed
}

func (s *sandboxSlots) startedOne(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started += n
}

// limitState is a snapshot for a waiting start.
type limitState struct {
	stopping, started, waiting int
	freed                      uint64
	lastStop                   time.Time
	changed                    <-chan struct{}
}

func (s *sandboxSlots) state() limitState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return limitState{stopping: s.stopping, started: s.started, waiting: s.waiting, freed: s.freed,
		lastStop: s.lastStop, changed: s.changed}
}

func (s *sandboxSlots) addWaiting(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting += n
}
