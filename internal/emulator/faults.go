package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
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
	// LoseAnswer is the fraction of matching control-plane requests that
	// are carried out in full and then lose their answer, whatever the
	// route: the backend committed, the client never hears of it. LostAs
	// says how, chosen at random among its entries: LostDrop (the default)
	// cuts the connection, LostGateway has a gateway answer 504 in the
	// answer's place. Envd routes are never affected.
	LoseAnswer float64  `json:"loseAnswer"`
	LostAs     []string `json:"lostAs"`
	// CreateDelay makes a matching sandbox create take this long before the
	// sandbox exists. GatewayTimeout makes a gateway answer 504 to a create
	// still running after this long, while the create goes on (and may
	// succeed) behind it.
	CreateDelay    time.Duration `json:"createDelay"`
	GatewayTimeout time.Duration `json:"gatewayTimeout"`
	// AnswerDelay holds the answer of every matching control-plane request
	// this long after the request was carried out in full, while the
	// client may give up waiting: an interrupt that comes while the answer
	// is on its way.
	AnswerDelay time.Duration `json:"answerDelay"`
}

// How a LoseAnswer fault loses the answer.
const (
	LostDrop    = "drop"    // the connection is cut after the request was carried out
	LostGateway = "gateway" // a gateway answers 504 Gateway Time-out instead
)

// UnmarshalJSON accepts the durations as nanoseconds (Go's encoding) or as
// duration strings such as "250ms".
func (f *Faults) UnmarshalJSON(b []byte) error {
	type plain Faults
	var raw struct {
		plain
		Latency        json.RawMessage `json:"latency"`
		CreateDelay    json.RawMessage `json:"createDelay"`
		GatewayTimeout json.RawMessage `json:"gatewayTimeout"`
		AnswerDelay    json.RawMessage `json:"answerDelay"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = Faults(raw.plain)
	var err error
	if f.Latency, err = durationJSON("latency", raw.Latency); err != nil {
		return err
	}
	if f.CreateDelay, err = durationJSON("createDelay", raw.CreateDelay); err != nil {
		return err
	}
	if f.AnswerDelay, err = durationJSON("answerDelay", raw.AnswerDelay); err != nil {
		return err
	}
	f.GatewayTimeout, err = durationJSON("gatewayTimeout", raw.GatewayTimeout)
	return err
}

func durationJSON(name string, raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		return d, nil
	}
	var ns int64
	if err := json.Unmarshal(raw, &ns); err != nil {
		return 0, fmt.Errorf("%s: want nanoseconds or a duration string: %w", name, err)
	}
	return time.Duration(ns), nil
}

type faultState struct {
	mu  sync.Mutex
	f   Faults
	rng *rand.Rand
}

// current is the faults as set.
func (fs *faultState) current() Faults {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.f
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

// Validate checks that the faults can be served: rates within 0..1, a
// latency that is not negative, failure statuses within 400..599.
func (f Faults) Validate() error {
	for name, rate := range map[string]float64{"errorRate": f.ErrorRate, "dropRate": f.DropRate, "dropAfterCreate": f.DropAfterCreate, "loseAnswer": f.LoseAnswer} {
		if rate < 0 || rate > 1 || math.IsNaN(rate) {
			return fmt.Errorf("%s %v is not between 0 and 1", name, rate)
		}
	}
	if f.Latency < 0 || f.CreateDelay < 0 || f.GatewayTimeout < 0 || f.AnswerDelay < 0 {
		return fmt.Errorf("latency, createDelay, gatewayTimeout and answerDelay must not be negative")
	}
	for _, st := range f.Statuses {
		if st < 400 || st > 599 {
			return fmt.Errorf("status %d is not a failure status (400 to 599)", st)
		}
	}
	for _, how := range f.LostAs {
		if how != LostDrop && how != LostGateway {
			return fmt.Errorf("lostAs %q is neither %q nor %q", how, LostDrop, LostGateway)
		}
	}
	return nil
}

// SetFaults replaces the injected faults; the zero value disables them. It
// panics on faults that fail Validate (a mistake in the calling test).
func (s *Server) SetFaults(f Faults) {
	if err := f.Validate(); err != nil {
		panic("emulator: SetFaults: " + err.Error())
	}
	s.faults.reset(f)
}

// faultDecision is what to do with one request.
type faultDecision struct {
	latency     time.Duration
	status      int
	drop        bool
	dropAfterOK bool
	createDelay time.Duration // creates only
	gateway     time.Duration // creates only
	lose        string        // LostDrop or LostGateway: carry the request out, then lose its answer
	hold        time.Duration // carry the request out, then hold its answer this long
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
	if !strings.HasPrefix(key, "envd ") {
		d.hold = f.AnswerDelay
	}
	if f.LoseAnswer > 0 && !strings.HasPrefix(key, "envd ") && fs.rng.Float64() < f.LoseAnswer {
		d.lose = LostDrop
		if len(f.LostAs) > 0 {
			d.lose = f.LostAs[fs.rng.Intn(len(f.LostAs))]
		}
		return d
	}
	if isCreate {
		d.createDelay, d.gateway = f.CreateDelay, f.GatewayTimeout
		d.dropAfterOK = f.DropAfterCreate > 0 && fs.rng.Float64() < f.DropAfterCreate
	}
	return d
}

// applyFaults runs the injected latency and failures for one request. It
// returns false when the request was answered (or dropped) by a fault.
func (s *Server) applyFaults(w http.ResponseWriter, r *http.Request, key string, isCreate bool) (ok, dropAfter bool) {
	d, ok := s.applyFaultDecision(w, r, key, isCreate)
	return ok, d.dropAfterOK
}

// applyFaultDecision is applyFaults that also returns the whole decision.
func (s *Server) applyFaultDecision(w http.ResponseWriter, r *http.Request, key string, isCreate bool) (faultDecision, bool) {
	d := s.faults.decide(key, isCreate)
	if d.drop || d.status != 0 || d.dropAfterOK || d.lose != "" {
		s.counters.add(func(c *Counters) { c.FaultsInjected++ })
	}
	if d.latency > 0 {
		t := time.NewTimer(d.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return d, false
		}
	}
	if d.drop {
		httpjson.Drop(w)
		return d, false
	}
	if d.status != 0 {
		if strings.HasPrefix(key, "envd ") {
			writeGatewayStatus(w, d.status)
		} else {
			writeFaultStatus(w, d.status)
		}
		return d, false
	}
	return d, true
}

// serveAfterEffect carries a control-plane request out in full, detached
// from the client's connection as a backend is. Then it loses the answer the
// way lose says (LostDrop, LostGateway), or holds it for hold and sends it
// unless the client gave up meanwhile: either way the client may not know
// whether the request took effect.
func (s *Server) serveAfterEffect(w http.ResponseWriter, r *http.Request, lose string, hold time.Duration) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return
	}
	inner := r.Clone(context.WithoutCancel(r.Context()))
	inner.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	s.cp.ServeHTTP(rec, inner)
	switch lose {
	case LostGateway:
		writeGatewayTimeout(w)
		return
	case LostDrop:
		httpjson.Drop(w)
		return
	}
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// writeGatewayTimeout answers the way a load balancer in front of E2B's API
// does when it gave up waiting: 504 with an HTML page, not E2B's JSON.
func writeGatewayTimeout(w http.ResponseWriter) {
	w.Header().Set(FaultHeader, "injected")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = io.WriteString(w, "<html><body><h1>504 Gateway Time-out</h1></body></html>\n")
}

func writeFaultStatus(w http.ResponseWriter, status int) {
	w.Header().Set(FaultHeader, "injected")
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

// FaultHeader marks an answer made up by fault injection, so that validators
// of E2B's specs can tell it from the emulator's E2B answers.
const FaultHeader = "X-Emulator-Fault"

// writeGatewayStatus answers an envd request the way the proxies in front of
// envd fail: plain text, not envd's own JSON (which would say that envd
// handled the request and will answer the same when it is sent again). A
// 429 is the edge's, in JSON.
func writeGatewayStatus(w http.ResponseWriter, status int) {
	w.Header().Set(FaultHeader, "injected")
	if status == http.StatusTooManyRequests {
		writeFaultStatus(w, status)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "%d %s\n", status, http.StatusText(status))
}
