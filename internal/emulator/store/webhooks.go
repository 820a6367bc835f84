package store

import (
	"slices"
	"sort"
	"time"
)

// Webhook is a registered webhook. Secret signs its deliveries and is never
// shown.
type Webhook struct {
	ID        string
	TeamID    string
	Name      string
	URL       string
	Enabled   bool
	Events    []string // sorted
	CreatedAt time.Time
	Secret    string
}

// WebhookChange names the fields a create or an update sets; nil leaves a
// field as it is.
type WebhookChange struct {
	Name, URL, Secret *string
	Enabled           *bool
	Events            *[]string
}

func (wh *Webhook) apply(c WebhookChange) {
	if c.Name != nil {
		wh.Name = *c.Name
	}
	if c.URL != nil {
		wh.URL = *c.URL
	}
	if c.Enabled != nil {
		wh.Enabled = *c.Enabled
	}
	if c.Events != nil {
		wh.Events = slices.Clone(*c.Events)
		sort.Strings(wh.Events)
	}
	if c.Secret != nil {
		wh.Secret = *c.Secret
	}
}

func (wh *Webhook) clone() Webhook {
	out := *wh
	out.Events = slices.Clone(wh.Events)
	return out
}

// AddWebhook registers base with the change applied.
func (st *Store) AddWebhook(base Webhook, c WebhookChange) Webhook {
	wh := base
	wh.apply(c)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.webhooks[wh.ID] = &wh
	return wh.clone()
}

// Webhook finds a webhook by ID.
func (st *Store) Webhook(id string) (Webhook, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if wh := st.webhooks[id]; wh != nil {
		return wh.clone(), true
	}
	return Webhook{}, false
}

// Webhooks lists the webhooks, oldest first.
func (st *Store) Webhooks() []Webhook {
	st.mu.Lock()
	out := make([]Webhook, 0, len(st.webhooks))
	for _, wh := range st.webhooks {
		out = append(out, wh.clone())
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out
}

// UpdateWebhook applies c to the webhook id.
func (st *Store) UpdateWebhook(id string, c WebhookChange) (Webhook, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	wh := st.webhooks[id]
	if wh == nil {
		return Webhook{}, false
	}
	wh.apply(c)
	return wh.clone(), true
}

// DeleteWebhook forgets a webhook; ok is false when there was none.
func (st *Store) DeleteWebhook(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.webhooks[id]
	delete(st.webhooks, id)
	delete(st.deliveries, id)
	return ok
}
