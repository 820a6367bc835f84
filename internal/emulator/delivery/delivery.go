// Package delivery sends webhook deliveries as E2B documents them: a POST
// of the event JSON with the e2b-webhook-id, e2b-delivery-id (new for every
// attempt), e2b-signature-version ("v1") and e2b-signature (unpadded base64
// of sha256(signatureSecret + body)) headers. An attempt fails on a
// transport error, a non-2xx answer or no answer within its timeout, and is
// retried a few times, an interval apart, while the webhook stays enabled.
// Deliveries wait in a bounded queue that Enqueue never blocks on.
//
// It knows webhooks only through Config.Target and holds no pointer to the
// server; it imports nothing of the emulator.
package delivery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
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
}

type job struct {
	hookID  string
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

// Enqueue queues a first attempt without blocking; false when the queue is
// full and the delivery is dropped.
func (s *Sender) Enqueue(hookID string, body []byte) bool {
	return s.enqueue(job{hookID: hookID, body: body})
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
	err := s.post(target, j, secret)
	if err == nil {
		return
	}
	s.cfg.Logf("emulator: webhook %s delivery attempt %d failed: %v", j.hookID, j.attempt+1, err)
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

func (s *Sender) post(target string, j job, secret string) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(j.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("e2b-webhook-id", j.hookID)
	req.Header.Set("e2b-delivery-id", s.cfg.NewID())
	req.Header.Set("e2b-signature-version", "v1")
	req.Header.Set("e2b-signature", Signature(secret, j.body))
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	return nil
}
