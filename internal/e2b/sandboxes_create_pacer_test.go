package e2b

import (
	"context"
	"math/rand"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// simBucket is E2B's create rate limit (a GCRA bucket, as its API's
// middleware uses): rate per second, burst at once.
type simBucket struct {
	interval time.Duration
	burst    int
	tat      time.Time
}

func newSimBucket(perSecond float64, burst int) *simBucket {
	return &simBucket{interval: time.Duration(float64(time.Second) / perSecond), burst: burst}
}

// allow decides a create arriving at now and returns E2B's Retry-After for
// a refusal (whole seconds, at least 1).
func (b *simBucket) allow(now time.Time) (bool, time.Duration) {
	tat := b.tat
	if tat.Before(now) {
		tat = now
	}
	allowAt := tat.Add(b.interval).Add(-time.Duration(b.burst) * b.interval)
	if now.Before(allowAt) {
		return false, max(allowAt.Sub(now).Truncate(time.Second), time.Second)
	}
	b.tat = tat.Add(b.interval)
	return true, 0
}

// simAnswer is a create reaching E2B (arrive) or its answer reaching the client.
type simAnswer struct {
	at       time.Time
	worker   int
	sent     time.Time
	paced    bool
	arrived  bool
	admitted bool
	retry    time.Duration
}

type simResult struct {
	elapsed  time.Duration
	refusals int
}

// simCreateTime is about how long a create E2B lets through takes to answer.
const simCreateTime = 250 * time.Millisecond

// simulateCreates runs creates through the pacer against the bucket with
// workers creates in flight at a time (terraform -parallelism), in virtual
// time, one millisecond a step: a deterministic model of the machinery, not
// a measurement. Refusals come back at once; a create E2B lets through takes
// a while longer to answer, as E2B's do.
func simulateCreates(p *createPacer, b *simBucket, workers, creates int, seed int64) simResult {
	return simulateJitter(p, b, workers, creates, seed, 10*time.Millisecond)
}

// simulateJitter is simulateCreates with one-way latencies spread over
// 20 ms + jitter (a busy machine or network).
func simulateJitter(p *createPacer, b *simBucket, workers, creates int, seed int64, jitter time.Duration) simResult {
	rng := rand.New(rand.NewSource(seed))
	latency := func() time.Duration { return 20*time.Millisecond + time.Duration(rng.Int63n(int64(jitter))) }
	start := time.Unix(1_800_000_000, 0)
	var queue []int         // workers waiting for their turn, in order
	var pending []simAnswer // sorted by at
	readyAt := map[int]time.Time{}
	for w := 0; w < workers && w < creates; w++ {
		readyAt[w] = start
	}
	started := min(workers, creates)
	var res simResult
	done := 0
	push := func(a simAnswer) {
		i := sort.Search(len(pending), func(i int) bool { return pending[i].at.After(a.at) })
		pending = append(pending, simAnswer{})
		copy(pending[i+1:], pending[i:])
		pending[i] = a
	}
	for now := start; done < creates; now = now.Add(time.Millisecond) {
		for len(pending) > 0 && !pending[0].at.After(now) {
			a := pending[0]
			pending = pending[1:]
			switch {
			case !a.arrived:
				ok, retry := b.allow(a.at)
				a.arrived, a.admitted, a.retry = true, ok, retry
				wait := latency()
				if ok {
					wait += simCreateTime - 40*time.Millisecond // making a sandbox takes a while
				}
				a.at = a.at.Add(wait)
				push(a)
			case a.admitted:
				p.admitted(a.sent, a.paced)
				done++
				res.elapsed = a.at.Sub(start)
				if started < creates {
					started++
					readyAt[a.worker] = a.at
				}
			default:
				res.refusals++
				p.throttled(a.sent, a.paced, a.retry)
				readyAt[a.worker] = a.at
				if a.retry > time.Second {
					readyAt[a.worker] = a.sent.Add(a.retry)
				}
			}
		}
		for w := 0; w < workers; w++ {
			if t, ok := readyAt[w]; ok && !t.After(now) {
				delete(readyAt, w)
				queue = append(queue, w)
			}
		}
		for len(queue) > 0 {
			ok, paced, _, _ := p.claim(now)
			if !ok {
				break
			}
			push(simAnswer{at: now.Add(latency()), worker: queue[0], sent: now, paced: paced})
			queue = queue[1:]
		}
		if now.Sub(start) > time.Hour {
			panic("simulation did not finish within an hour")
		}
	}
	return res
}

// TestCreatePacerLearnsTheRate: an unpaced start against E2B's plans' rates
// ends within 15% of the time the rate allows, at any parallelism.
func TestCreatePacerLearnsTheRate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		rate           float64
		burst, creates int
	}{
		{"pro", 5, 5, 100},
		{"hobby", 1, 1, 20},
		{"hobby, long", 1, 1, 150},
		{"pro, long", 5, 5, 600},
		{"burst of two seconds", 50, 100, 1000},
	}
	for _, c := range cases {
		for _, run := range []struct {
			workers int
			jitter  time.Duration
		}{{1, 10 * time.Millisecond}, {10, 10 * time.Millisecond}, {30, 10 * time.Millisecond}, {10, 150 * time.Millisecond}, {30, 150 * time.Millisecond}} {
			p := newCreatePacer()
			res := simulateJitter(p, newSimBucket(c.rate, c.burst), run.workers, c.creates, 1, run.jitter)
			// The rate's floor, or the answers' when there are too few workers for the rate.
			floor := max(time.Duration(float64(c.creates)/c.rate*float64(time.Second)), time.Duration(c.creates/run.workers)*(simCreateTime+run.jitter))
			t.Logf("%s, %d at a time, jitter %s: %s for %d creates (floor %s, %.2fx), %d refused, pace %s",
				c.name, run.workers, run.jitter, res.elapsed.Round(time.Millisecond), c.creates, floor, res.elapsed.Seconds()/floor.Seconds(), res.refusals, p.Interval())
			if res.elapsed > floor*115/100 {
				t.Errorf("%s, %d at a time, jitter %s: %s, more than 1.15x the %s the rate allows", c.name, run.workers, run.jitter, res.elapsed, floor)
			}
		}
	}
}

// TestCreatePacerSmallBurst: when E2B lets fewer creates through at once
// than it allows per second, the first guess is too slow; doubling the pace
// finds the rate within seconds (a stated rate avoids it).
func TestCreatePacerSmallBurst(t *testing.T) {
	t.Parallel()
	p := newCreatePacer()
	res := simulateCreates(p, newSimBucket(5, 1), 10, 100, 5)
	t.Logf("5 per second, one at once: %s for 100 creates, %d refused, pace %s", res.elapsed, res.refusals, p.Interval())
	if res.elapsed > 32*time.Second {
		t.Fatalf("%s for 100 creates at 5 per second", res.elapsed)
	}
}

// TestCreatePacerFirstGuess: the first refusal sets the spacing from the
// creates E2B let through in the last second, with a margin.
func TestCreatePacerFirstGuess(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p := newCreatePacer()
	for i := 0; i < 5; i++ {
		p.admitted(now, false)
	}
	if p.Interval() != 0 {
		t.Fatal("creates are paced before any refusal")
	}
	p.throttled(now.Add(time.Millisecond), false, time.Second)
	if got, want := p.Interval(), time.Duration(float64(200*time.Millisecond)*paceMargin); got != want {
		t.Fatalf("pace after 5 let through and a refusal: %s, want %s", got, want)
	}
	// Refusals of the same burst sent later do not push the next slot: E2B
	// lets a create through within a slot of the earliest it refused.
	p.throttled(now.Add(100*time.Millisecond), false, time.Second)
	if ok, paced, wait, _ := p.claim(now.Add(time.Millisecond)); ok || !paced || wait != p.Interval() {
		t.Fatalf("the next create may go in %s (ok %v, paced %v), want one slot after the first refusal", wait, ok, paced)
	}
	sent := now.Add(time.Millisecond + p.Interval())
	if ok, _, _, _ := p.claim(sent); !ok {
		t.Fatal("the slot after the burst is not free")
	}
	// A lone refusal of a paced create: the next try comes a quarter slot later.
	p.throttled(sent, true, time.Second)
	if _, _, wait, _ := p.claim(sent); wait != p.Interval()/4 {
		t.Fatalf("after a lone refusal the next create may go in %s, want a quarter slot (%s)", wait, p.Interval()/4)
	}
	// Refusals in a row: a whole slot.
	for i := 0; i < 3; i++ {
		p.throttled(sent, true, time.Second)
	}
	if _, _, wait, _ := p.claim(sent); wait != p.Interval() {
		t.Fatalf("after four refusals in a row the next create may go in %s, want a whole slot", wait)
	}
}

// TestCreatePacerLongRetryAfter: a Retry-After longer than a second is a
// spacing E2B asked for.
func TestCreatePacerLongRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p := newCreatePacer()
	p.admitted(now, false)
	p.throttled(now, false, 9*time.Second)
	if got := p.Interval(); got < 10*time.Second {
		t.Fatalf("pace %s after Retry-After: 10", got)
	}
	res := simulateCreates(newCreatePacer(), newSimBucket(0.1, 1), 10, 5, 2)
	if floor := 50 * time.Second; res.elapsed > floor*115/100 || res.refusals > 20 {
		t.Fatalf("one create per 10 s: %s and %d refusals for 5 creates", res.elapsed, res.refusals)
	}
}

// TestCreatePacerStatedRate: a stated rate paces from the first create and
// is never exceeded, even when E2B would allow more.
func TestCreatePacerStatedRate(t *testing.T) {
	t.Parallel()
	p := newCreatePacer()
	p.state(5)
	p.state(10) // the slowest stated rate wins
	if p.Interval() != 200*time.Millisecond {
		t.Fatalf("stated pace %s", p.Interval())
	}
	res := simulateCreates(p, newSimBucket(50, 50), 30, 100, 3)
	if res.refusals != 0 || p.Interval() != 200*time.Millisecond || res.elapsed < 19*time.Second {
		t.Fatalf("stated 5/s against a faster E2B: %s, %d refused, pace %s", res.elapsed, res.refusals, p.Interval())
	}
	// A stated rate faster than E2B's is corrected by what E2B answers.
	p = newCreatePacer()
	p.state(10)
	res = simulateCreates(p, newSimBucket(1, 1), 10, 20, 4)
	if res.elapsed > 23*time.Second {
		t.Fatalf("stated 10/s against 1/s: %s, %d refused", res.elapsed, res.refusals)
	}
}

// TestCreatePacerProbesFaster: creates that E2B keeps letting through make
// the pacer try a faster pace, never past a stated one.
func TestCreatePacerProbesFaster(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p := newCreatePacer()
	p.admitted(now, false)
	p.throttled(now, false, 0)
	before := p.Interval()
	for i := 1; i <= calmProbe; i++ {
		p.admitted(now.Add(time.Duration(i)*time.Second), true)
	}
	if got := p.Interval(); got >= before {
		t.Fatalf("pace %s after %d creates let through, was %s", got, calmProbe, before)
	}
	p = newCreatePacer()
	p.state(1)
	for i := 1; i <= 3*calmProbe; i++ {
		p.admitted(now.Add(time.Duration(i)*time.Second), true)
	}
	if p.Interval() != time.Second {
		t.Fatalf("probing went past the stated rate: %s", p.Interval())
	}
}

// TestClientsOfOneTeamShareTheirLimits: every client of a process for the
// same API and key paces with one pacer and counts places together; another
// key is another team.
func TestClientsOfOneTeamShareTheirLimits(t *testing.T) {
	t.Parallel()
	a, _ := New(Config{APIKey: "e2b_shared", APIURL: "http://127.0.0.1:1", CreateRate: 2})
	b, _ := New(Config{APIKey: "e2b_shared", APIURL: "http://127.0.0.1:1/"})
	other, _ := New(Config{APIKey: "e2b_other", APIURL: "http://127.0.0.1:1"})
	if a.limits != b.limits || a.limits == other.limits {
		t.Fatal("clients of one team do not share their limits, or two teams do")
	}
	if b.limits.pacer.Interval() != 500*time.Millisecond || other.limits.pacer.Interval() != 0 {
		t.Fatalf("a stated rate is the team's: %s, %s", b.limits.pacer.Interval(), other.limits.pacer.Interval())
	}
}

// TestRefusedCreateLogsThePace: a refusal for the rate sends the create
// again in a later turn (made once) and tells the logger the new pace.
func TestRefusedCreateLogsThePace(t *testing.T) {
	t.Parallel()
	var creates atomic.Int32
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /v2/sandboxes": func(w http.ResponseWriter, _ *http.Request) {
			if creates.Add(1) == 1 {
				writeJSON(w, http.StatusTooManyRequests, `{"code":429,"message":"Rate limit exceeded"}`)
				return
			}
			writeJSON(w, http.StatusCreated, `{"sandboxID":"iabc","templateID":"base","clientID":"x","envdVersion":"0.2.0"}`)
		},
	})
	log := &recordingLogger{}
	cfg := fastConfig(rs.URL)
	cfg.Logger = log
	c := newTestClient(t, cfg)
	if _, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"}); err != nil {
		t.Fatalf("create after one refusal: %v", err)
	}
	if n := rs.count("POST /v2/sandboxes"); n != 2 {
		t.Fatalf("%d creates sent, want the refused one and its retry", n)
	}
	if !strings.Contains(log.all(), "creates are paced") {
		t.Fatalf("the new pace was not logged:\n%s", log.all())
	}
}
