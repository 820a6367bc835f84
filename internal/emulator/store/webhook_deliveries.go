package store

import (
	"slices"
	"time"
)

// MaxDeliveriesPerWebhook is how many delivery attempts a webhook's history
// keeps (the newest), so a failing endpoint cannot grow it without bound.
const MaxDeliveriesPerWebhook = 5_000

// WebhookDelivery is one delivery attempt in a webhook's history, with the
// fields E2B records. RequestHeaders has its sensitive values redacted.
type WebhookDelivery struct {
	ID, WebhookID                 string
	EventID, EventType, SandboxID string
	Success                       bool
	Duration                      time.Duration
	RequestBody, RequestHeaders   string
	RequestURL                    string
	ResponseBody, ResponseHeaders string    // "" without an answer
	StatusCode                    int       // 0 without an answer
	ErrorClass, ErrorMessage      string    // "" on success
	Timestamp                     time.Time // the attempt's start
}

// RecordDelivery adds an attempt to its webhook's history; an attempt for
// a webhook deleted meanwhile is not kept.
func (st *Store) RecordDelivery(d WebhookDelivery) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.webhooks[d.WebhookID] == nil {
		return
	}
	list := append(st.deliveries[d.WebhookID], d)
	if len(list) > MaxDeliveriesPerWebhook {
		list = slices.Clone(list[len(list)-MaxDeliveriesPerWebhook:])
	}
	st.deliveries[d.WebhookID] = list
}

// WebhookDeliveries is a copy of a webhook's history, oldest first; ok is
// false when there is no such webhook.
func (st *Store) WebhookDeliveries(webhookID string) (out []WebhookDelivery, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.webhooks[webhookID] == nil {
		return nil, false
	}
	return slices.Clone(st.deliveries[webhookID]), true
}
