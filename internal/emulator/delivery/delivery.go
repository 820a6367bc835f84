// Package delivery sends webhook deliveries as E2B documents them: a POST
// of the event JSON with the e2b-webhook-id, e2b-delivery-id (new for every
// attempt), e2b-signature-version ("v1") and e2b-signature (unpadded base64
// of sha256(signatureSecret + body)) headers. An attempt fails on a
// transport error, a non-2xx answer or no answer within its timeout, and is
// retried a few times, an interval apart, while the webhook stays enabled.
// Deliveries wait in a bounded queue that Enqueue never blocks on. Every
// attempt, answered or not, is handed to Config.Record with E2B's delivery
// fields: its status, error class, answer, and its request headers with the
// signature redacted.
//
// It knows webhooks only through Config.Target and holds no pointer to the
// server; it imports nothing of the emulator.
package delivery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Config is how a Sender delivers.
type Config struct {
	Workers        int           // deliveries in flight at once
	QueueSize      int           // deliveries waiting; a full queue drops
	Retries        int           // attempts after the first
	RetryInterval  time.Duration // between attempts
	AttemptTimeout time.Duration // for one attempt, answer included
	// Target is the webhook's current URL and signing secret; ok is false
	// once it is deleted or disabled, which ends its deliveries.
	Target func(hookID string) (url, secret string, ok bool)
	// RetryDropped is told of a retry that found the queue full. It is
	// called from a timer, holding nothing of the Sender's.
	RetryDropped func(hookID string)
	NewID        func() string // delivery IDs
	Logf         func(format string, args ...any)
	// Record is told of every attempt once it ended; nil records nothing.
	Record func(Attempt)
}

// Event names the event a delivery carries.
type Event struct{ ID, Type, SandboxID string }

// E2B's error classes of a failed attempt.
const (
	ErrorHTTP      = "http_error"      // answered outside 2xx
	ErrorDNS       = "dns_error"       // the host did not resolve
	ErrorTimeout   = "timeout"         // no answer within the attempt's time
	ErrorTransport = "transport_error" // connection refused, reset, TLS...
	ErrorRequest   = "request_error"   // the request could not be made
	ErrorCanceled  = "canceled"        // the sender stopped mid-attempt
)

// Redacted replaces the value of a sensitive request header.
const Redacted = "[REDACTED]"

// sensitiveHeaders are the request headers whose values are never recorded:
// the signature is derived from the webhook's secret.
var sensitiveHeaders = map[string]bool{"E2b-Signature": true, "Authorization": true}

// maxRecordedBody bounds a recorded answer body, as E2B truncates it.
const maxRecordedBody = 4 << 10

// Attempt is one delivery attempt as E2B records it.
type Attempt struct {
	ID, HookID     string
	Event          Event
	Number         int // 1 = first
	URL            string
	RequestBody    string
	RequestHeaders string // JSON object, sensitive values redacted
	Start          time.Time
	Duration       time.Duration
	Success        bool
	// StatusCode is 0, and ResponseBody and ResponseHeaders empty, when no
	// answer came.
	StatusCode      int
	ResponseBody    string
	ResponseHeaders string
	ErrorClass      string // "" on success
	ErrorMessage    string
}

type job struct {
	hookID  string
	event   Event
	body    []byte
	attempt int // 0 = first
}

// Sender queues and sends deliveries until Stop.
type Sender struct {
	cfg      Config
	queue    chan job
	client   *http.Client
	stop     chan struct{}
	ctx      context.Context // ends in-flight attempts at Stop
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	timersMu sync.Mutex
	timers   map[*time.Timer]struct{}
	held     atomic.Bool // retries are no longer queued
}

// Start starts the workers.
func Start(cfg Config) *Sender {
	s := &Sender{cfg: cfg, queue: make(chan job, cfg.QueueSize), stop: make(chan struct{}), timers: map[*time.Timer]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.client = &http.Client{Timeout: cfg.AttemptTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is an answer, not followed
	}}
	for range cfg.Workers {
		s.wg.Add(1)
		go s.loop()
	}
	return s
}

// Stop cancels pending retries and attempts in flight and waits for the
// workers.
func (s *Sender) Stop() {
	s.timersMu.Lock()
	for t := range s.timers {
		t.Stop()
	}
	s.timersMu.Unlock()
	s.cancel()
	close(s.stop)
	s.wg.Wait()
}

// Hold stops queueing retries (the server is closing); Stop ends the rest.
func (s *Sender) Hold() { s.held.Store(true) }

// Enqueue queues a first attempt of ev without blocking; false when the
// queue is full and the delivery is dropped.
func (s *Sender) Enqueue(hookID string, ev Event, body []byte) bool {
	return s.enqueue(job{hookID: hookID, event: ev, body: body})
}

func (s *Sender) enqueue(j job) bool {
	select {
	case s.queue <- j:
		return true
	default:
		return false
	}
}

func (s *Sender) loop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.stop:
			return
		case j := <-s.queue:
			s.attempt(j)
		}
	}
}

// attempt sends one delivery and schedules its retry on failure.
func (s *Sender) attempt(j job) {
	target, secret, ok := s.cfg.Target(j.hookID)
	if !ok || target == "" {
		return // deleted or disabled meanwhile: no more attempts
	}
	a := s.post(target, j, secret)
	if s.cfg.Record != nil {
		s.cfg.Record(a)
	}
	if a.Success {
		return
	}
	s.cfg.Logf("emulator: webhook %s delivery attempt %d failed (%s, status %d): %s", j.hookID, j.attempt+1, a.ErrorClass, a.StatusCode, a.ErrorMessage)
	if j.attempt >= s.cfg.Retries {
		return
	}
	j.attempt++
	// The lock is held until t is assigned and kept: the timer may fire first.
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	var t *time.Timer
	t = time.AfterFunc(s.cfg.RetryInterval, func() {
		s.timersMu.Lock()
		delete(s.timers, t)
		s.timersMu.Unlock()
		if s.held.Load() {
			return
		}
		if !s.enqueue(j) {
			s.cfg.RetryDropped(j.hookID)
		}
	})
	s.timers[t] = struct{}{}
}

// Signature is the e2b-signature header of body.
func Signature(secret string, body []byte) string {
	sum := sha256.Sum256(append([]byte(secret), body...))
	return base64.RawStdEncoding.EncodeToString(sum[:])
}

// post makes one attempt and says how it went.
func (s *Sender) post(target string, j job, secret string) Attempt {
	a := Attempt{ID: s.cfg.NewID(), HookID: j.hookID, Event: j.event, Number: j.attempt + 1,
		URL: target, RequestBody: string(j.body), Start: time.Now().UTC()}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.AttemptTimeout)
	defer cancel()
	defer func() { a.Duration = time.Since(a.Start) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(j.body))
	if err != nil {
		a.ErrorClass, a.ErrorMessage = ErrorRequest, err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("e2b-webhook-id", j.hookID)
	req.Header.Set("e2b-delivery-id", a.ID)
	req.Header.Set("e2b-signature-version", "v1")
	req.Header.Set("e2b-signature", Signature(secret, j.body))
	a.RequestHeaders = headersJSON(req.Header, true)
	resp, err := s.client.Do(req)
	if err != nil {
		a.ErrorClass, a.ErrorMessage = classify(s.ctx, err), err.Error()
		return a
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxRecordedBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	a.StatusCode, a.ResponseBody, a.ResponseHeaders = resp.StatusCode, string(body), headersJSON(resp.Header, false)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// E2B gives a message only for a failure without a useful body.
		a.ErrorClass = ErrorHTTP
		if len(bytes.TrimSpace(body)) == 0 {
			a.ErrorMessage = "answered " + resp.Status + " with an empty body"
		}
		return a
	}
	a.Success = true
	return a
}

// classify names the class of a failure without an answer.
func classify(senderCtx context.Context, err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case senderCtx.Err() != nil:
		return ErrorCanceled
	case errors.As(err, &dns):
		return ErrorDNS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return ErrorTimeout
	default:
		return ErrorTransport
	}
}

// headersJSON is h as a JSON object of first values (keys sorted by
// encoding/json), with sensitive ones redacted when redact.
func headersJSON(h http.Header, redact bool) string {
	out := make(map[string]string, len(h))
	for k := range h {
		v := h.Get(k)
		if redact && sensitiveHeaders[http.CanonicalHeaderKey(k)] {
			v = Redacted
		}
		out[k] = v
	}
	b, _ := json.Marshal(out)
	return string(b)
}
