package emulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// Delivery follows E2B's documentation: a POST of the event JSON with the
// e2b-webhook-id, e2b-delivery-id (new for every attempt),
// e2b-signature-version ("v1") and e2b-signature (unpadded base64 of
// sha256(signatureSecret + body)) headers; an attempt fails on a transport
// error, a non-2xx answer or no answer within 10 s, and is retried up to 3
// times, 10 s apart. Deliveries wait in a bounded queue that the API never
// blocks on: when it is full the event is not delivered (counted in
// Counters.WebhookDrops) but stays in /events/sandboxes.

const (
	webhookQueueSize   = 1024
	webhookWorkers     = 2
	webhookRetries     = 3
	webhookAttemptTime = 10 * time.Second
)

// webhookJSON is E2B's webhook schema: the registration without its secret.
type webhookJSON struct {
	ID        string    `json:"id"`
	TeamID    string    `json:"teamID"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Enabled   bool      `json:"enabled"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
}

func webhookJSONOf(wh state.Webhook) webhookJSON {
	return webhookJSON{ID: wh.ID, TeamID: wh.TeamID, Name: wh.Name, URL: wh.URL,
		Enabled: wh.Enabled, Events: wh.Events, CreatedAt: wh.CreatedAt}
}

type delivery struct {
	hookID  string
	body    []byte
	attempt int // 0 = first
}

// hookState holds the webhooks and their delivery queue.
type hookState struct {
	queue    chan delivery
	retry    time.Duration
	client   *http.Client
	stop     chan struct{}
	ctx      context.Context // ends in-flight attempts at Close
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	timersMu sync.Mutex
	timers   map[*time.Timer]struct{}
}

func (s *Server) startWebhooks() {
	h := &s.hooks
	h.queue = make(chan delivery, webhookQueueSize)
	h.stop = make(chan struct{})
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.timers = map[*time.Timer]struct{}{}
	h.retry = s.opts.WebhookRetryInterval
	h.client = &http.Client{Timeout: webhookAttemptTime, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is an answer, not followed
	}}
	for range webhookWorkers {
		h.wg.Add(1)
		go s.deliverLoop()
	}
}

func (s *Server) stopWebhooks() {
	h := &s.hooks
	h.timersMu.Lock()
	for t := range h.timers {
		t.Stop()
	}
	h.timersMu.Unlock()
	h.cancel()
	close(h.stop)
	h.wg.Wait()
}

// dispatchLocked queues ev for the webhooks named, without blocking.
// Caller holds s.mu.
func (s *Server) dispatchLocked(ev state.Event, webhookIDs []string) {
	if len(webhookIDs) == 0 {
		return
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return
	}
	for _, id := range webhookIDs {
		s.hooks.enqueueLocked(s, delivery{hookID: id, body: body})
	}
}

func (h *hookState) enqueueLocked(s *Server, d delivery) {
	select {
	case h.queue <- d:
	default:
		s.counters.WebhookDrops++
		s.logf("emulator: webhook queue full; an event for webhook %s is not delivered", d.hookID)
	}
}

func (s *Server) deliverLoop() {
	h := &s.hooks
	defer h.wg.Done()
	for {
		select {
		case <-h.stop:
			return
		case d := <-h.queue:
			s.attempt(d)
		}
	}
}

// attempt sends one delivery and schedules its retry on failure.
func (s *Server) attempt(d delivery) {
	h := &s.hooks
	var target, secret string
	if wh, ok := s.store.Webhook(d.hookID); ok && wh.Enabled {
		target, secret = wh.URL, wh.Secret
	}
	if target == "" {
		return // deleted or disabled meanwhile: no more attempts
	}
	err := s.post(target, d, secret)
	if err == nil {
		return
	}
	s.logf("emulator: webhook %s delivery attempt %d failed: %v", d.hookID, d.attempt+1, err)
	if d.attempt >= webhookRetries {
		return
	}
	d.attempt++
	var t *time.Timer
	t = time.AfterFunc(h.retry, func() {
		h.timersMu.Lock()
		delete(h.timers, t)
		h.timersMu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed {
			h.enqueueLocked(s, d)
		}
	})
	h.timersMu.Lock()
	h.timers[t] = struct{}{}
	h.timersMu.Unlock()
}

func webhookSignature(secret string, body []byte) string {
	sum := sha256.Sum256(append([]byte(secret), body...))
	return base64.RawStdEncoding.EncodeToString(sum[:])
}

func (s *Server) post(target string, d delivery, secret string) error {
	ctx, cancel := context.WithTimeout(s.hooks.ctx, webhookAttemptTime)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(d.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("e2b-webhook-id", d.hookID)
	req.Header.Set("e2b-delivery-id", newUUID())
	req.Header.Set("e2b-signature-version", "v1")
	req.Header.Set("e2b-signature", webhookSignature(secret, d.body))
	resp, err := s.hooks.client.Do(req)
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

// ---------------------------------------------------------------- API

type webhookRequestJSON struct {
	Name            *string   `json:"name"`
	URL             *string   `json:"url"`
	Enabled         *bool     `json:"enabled"`
	Events          *[]string `json:"events"`
	SignatureSecret *string   `json:"signatureSecret"`
}

// validate checks the fields present; create needs url, events and
// signatureSecret.
func (req webhookRequestJSON) validate(create bool) string {
	if create && (req.URL == nil || req.Events == nil || req.SignatureSecret == nil) {
		return "url, events and signatureSecret are required"
	}
	if req.URL != nil {
		u, err := url.Parse(*req.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("url '%s' must be an absolute http(s) URL", *req.URL)
		}
	}
	if req.Events != nil {
		if len(*req.Events) == 0 {
			return "events must name at least one event type"
		}
		for _, e := range *req.Events {
			if !eventTypes[e] {
				return fmt.Sprintf("unknown event type '%s'", e)
			}
		}
	}
	if req.SignatureSecret != nil && *req.SignatureSecret == "" {
		return "signatureSecret must not be empty"
	}
	return ""
}

func (req webhookRequestJSON) change() state.WebhookChange {
	return state.WebhookChange{Name: req.Name, URL: req.URL, Secret: req.SignatureSecret,
		Enabled: req.Enabled, Events: req.Events}
}

func (s *Server) handleCreateWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequestJSON
	if err := decodeBody(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if msg := req.validate(true); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	wh := s.store.AddWebhook(state.Webhook{ID: newUUID(), TeamID: teamID, Enabled: true, CreatedAt: time.Now().UTC()}, req.change())
	respondOrDrop(w, r, http.StatusCreated, webhookJSONOf(wh))
}

func (s *Server) handleListWebhooks(w http.ResponseWriter, _ *http.Request) {
	out := []webhookJSON{}
	for _, wh := range s.store.Webhooks() {
		out = append(out, webhookJSONOf(wh))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetWebhook(w http.ResponseWriter, r *http.Request) {
	wh, ok := s.store.Webhook(r.PathValue("id"))
	if !ok {
		writeErrorf(w, http.StatusNotFound, "webhook '%s' not found", r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, webhookJSONOf(wh))
}

// handleUpdateWebhook replaces the fields the body names.
func (s *Server) handleUpdateWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequestJSON
	if err := decodeBody(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if msg := req.validate(false); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	wh, ok := s.store.UpdateWebhook(r.PathValue("id"), req.change())
	if !ok {
		writeErrorf(w, http.StatusNotFound, "webhook '%s' not found", r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, webhookJSONOf(wh))
}

func (s *Server) handleDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	if !s.store.DeleteWebhook(r.PathValue("id")) {
		writeErrorf(w, http.StatusNotFound, "webhook '%s' not found", r.PathValue("id"))
		return
	}
	w.WriteHeader(http.StatusOK)
}
