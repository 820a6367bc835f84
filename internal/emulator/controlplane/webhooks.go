package controlplane

import (
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/delivery"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"

	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Deliveries (package delivery) wait in a bounded queue that the API never
// blocks on: when it is full the event is not delivered (counted in
// Counters.WebhookDrops) but stays in /events/sandboxes.

const (
	webhookQueueSize   = 1024
	webhookWorkers     = 2
	webhookRetries     = 3
	webhookAttemptTime = 10 * time.Second
)

// WebhookJSON is E2B's webhook schema: the registration without its secret.
type WebhookJSON struct {
	ID        string    `json:"id"`
	TeamID    string    `json:"teamId"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Enabled   bool      `json:"enabled"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
}

func webhookJSONOf(wh store.Webhook) WebhookJSON {
	return WebhookJSON{ID: wh.ID, TeamID: wh.TeamID, Name: wh.Name, URL: wh.URL,
		Enabled: wh.Enabled, Events: wh.Events, CreatedAt: wh.CreatedAt}
}

func (s *API) startWebhooks() {
	s.deliveries = delivery.Start(delivery.Config{
		Workers: webhookWorkers, QueueSize: webhookQueueSize, Retries: webhookRetries,
		RetryInterval: s.opts.WebhookRetryInterval, AttemptTimeout: webhookAttemptTime,
		Target: func(hookID string) (string, string, bool) {
			wh, ok := s.opts.Store.Webhook(hookID)
			return wh.URL, wh.Secret, ok && wh.Enabled
		},
		RetryDropped: s.webhookDropped,
		NewID:        ids.UUID, Logf: s.opts.Logf,
		Record: s.recordDelivery,
	})
}

func (s *API) stopWebhooks() { s.deliveries.Stop() }

// dispatch queues ev for the webhooks named, without blocking.
func (s *API) dispatch(ev store.Event, webhookIDs []string) {
	if len(webhookIDs) == 0 {
		return
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return
	}
	ref := delivery.Event{ID: ev.ID, Type: ev.Type, SandboxID: ev.SandboxID}
	for _, id := range webhookIDs {
		if !s.deliveries.Enqueue(id, ref, body) {
			s.webhookDropped(id)
		}
	}
}

// webhookDropped counts a delivery the full queue dropped.
func (s *API) webhookDropped(hookID string) {
	s.opts.WebhookDropped()
	s.opts.Logf("emulator: webhook queue full; an event for webhook %s is not delivered", hookID)
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

func (req webhookRequestJSON) change() store.WebhookChange {
	return store.WebhookChange{Name: req.Name, URL: req.URL, Secret: req.SignatureSecret,
		Enabled: req.Enabled, Events: req.Events}
}

func (s *API) handleCreateWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequestJSON
	if err := httpjson.Decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if msg := req.validate(true); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	wh := s.opts.Store.AddWebhook(store.Webhook{ID: ids.UUID(), TeamID: TeamID, Enabled: true, CreatedAt: time.Now().UTC()}, req.change())
	respondOrDrop(w, r, http.StatusCreated, webhookJSONOf(wh))
}

func (s *API) handleListWebhooks(w http.ResponseWriter, _ *http.Request) {
	out := []WebhookJSON{}
	for _, wh := range s.opts.Store.Webhooks() {
		out = append(out, webhookJSONOf(wh))
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (s *API) handleGetWebhook(w http.ResponseWriter, r *http.Request) {
	wh, ok := s.opts.Store.Webhook(r.PathValue("id"))
	answerFound(w, r, "webhook", webhookJSONOf(wh), ok)
}

// handleUpdateWebhook replaces the fields the body names.
func (s *API) handleUpdateWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequestJSON
	if err := httpjson.Decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if msg := req.validate(false); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	wh, ok := s.opts.Store.UpdateWebhook(r.PathValue("id"), req.change())
	answerFound(w, r, "webhook", webhookJSONOf(wh), ok)
}

func (s *API) handleDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	answerDeleted(w, r, "webhook", s.opts.Store.DeleteWebhook(r.PathValue("id")), http.StatusOK)
}
