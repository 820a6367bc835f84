package e2b

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sandbox lifecycle event types that webhooks subscribe to and events carry.
var SandboxEventTypes = []string{
	"sandbox.lifecycle.created", "sandbox.lifecycle.updated", "sandbox.lifecycle.paused",
	"sandbox.lifecycle.resumed", "sandbox.lifecycle.killed", "sandbox.lifecycle.checkpointed",
}

// Webhook is a registered lifecycle webhook; E2B never returns its secret.
type Webhook struct {
	WebhookID, Name, URL string
	Enabled              bool
	Events               []string
	CreatedAt            time.Time
}

// WebhookInput is a webhook's configuration. On update, nil fields are
// left as they are.
type WebhookInput struct {
	Name, URL, SignatureSecret *string
	Enabled                    *bool
	Events                     []string
}

type wireWebhook struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Enabled   bool      `json:"enabled"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"createdAt"`
}

type wireWebhookInput struct {
	Name            *string  `json:"name,omitempty"`
	URL             *string  `json:"url,omitempty"`
	Enabled         *bool    `json:"enabled,omitempty"`
	Events          []string `json:"events,omitempty"`
	SignatureSecret *string  `json:"signatureSecret,omitempty"`
}

func (w wireWebhook) toWebhook() *Webhook {
	return &Webhook{WebhookID: w.ID, Name: w.Name, URL: w.URL, Enabled: w.Enabled, Events: w.Events, CreatedAt: w.CreatedAt}
}

// Validate applies E2B's webhook rules; create needs url, events and a secret.
func (in WebhookInput) Validate(create bool) error {
	if create && (in.URL == nil || len(in.Events) == 0 || in.SignatureSecret == nil) {
		return fmt.Errorf("a webhook needs a url, at least one event type and a signature secret")
	}
	if in.URL != nil {
		u, err := url.Parse(*in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("webhook url %q must be an absolute http:// or https:// URL", *in.URL)
		}
	}
	for _, e := range in.Events {
		if !slices.Contains(SandboxEventTypes, e) {
			return fmt.Errorf("unknown event type %q; E2B's are %v", e, SandboxEventTypes)
		}
	}
	if in.SignatureSecret != nil && *in.SignatureSecret == "" {
		return fmt.Errorf("the signature secret must not be empty")
	}
	return nil
}

func (in WebhookInput) wire() wireWebhookInput {
	return wireWebhookInput{Name: in.Name, URL: in.URL, Enabled: in.Enabled, Events: in.Events, SignatureSecret: in.SignatureSecret}
}

// CreateWebhook registers a webhook, never two and never adopting one it
// did not make. E2B's webhooks have no unique name and no field a client
// could mark its create with, so the client lists the team's webhooks first.
// When the answer is lost, it looks for webhooks that were not in that list:
// exactly one with this create's name, url, events and enabled is this
// create's; none means the create has not taken effect (the client looks
// until E2B can no longer be finishing it, and only then sends it again);
// any other new webhook with the same name and url makes the outcome
// unknown (*UnknownCreateError naming them). What E2B's API cannot tell: an
// identical webhook that another client registers while this create's
// answer is lost is taken for this create's.
func (c *Client) CreateWebhook(ctx context.Context, in WebhookInput) (*Webhook, error) {
	if err := in.Validate(true); err != nil {
		return nil, fmt.Errorf("create webhook: %w", err)
	}
	before, err := c.ListWebhooks(ctx)
	if err != nil {
		return nil, fmt.Errorf("create webhook: list the team's webhooks first (to tell the webhook this create makes from those that exist): %w", err)
	}
	existed := map[string]bool{}
	for _, w := range before {
		existed[w.WebhookID] = true
	}
	name := ""
	if in.Name != nil {
		name = *in.Name
	}
	// E2B's spec requires a name on create (any string): a webhook
	// configured without one is registered with the empty name.
	body := in.wire()
	body.Name = &name
	return createKept(ctx, c, keptCreate[Webhook]{
		kind: "webhook", name: name,
		idOf:     func(w *Webhook) string { return w.WebhookID },
		mayExist: fmt.Sprintf("a webhook named %q posting to %s, registered after this create started", name, RedactURLString(*in.URL)),
		post: func(ctx context.Context) (*Webhook, error) {
			var w wireWebhook
			_, err := c.callAPI(ctx, apiCall{op: "create webhook", method: http.MethodPost, path: "/events/webhooks",
				body: body, class: retryRateLimited, out: &w})
			if err != nil {
				return nil, err
			}
			return w.toWebhook(), nil
		},
		find: func(ctx context.Context) (*Webhook, error) {
			list, err := c.ListWebhooks(ctx)
			if err != nil {
				return nil, err
			}
			var same, alike []Webhook
			for _, w := range list {
				switch {
				case existed[w.WebhookID]:
				case in.describes(w):
					same = append(same, w)
				case w.Name == name && sameURL(w.URL, *in.URL):
					alike = append(alike, w) // the same webhook, unless E2B changed what it stored
				}
			}
			if len(same) == 1 && len(alike) == 0 {
				return &same[0], nil
			}
			if len(same)+len(alike) == 0 {
				return nil, nil
			}
			var ids []string
			for _, w := range append(same, alike...) {
				ids = append(ids, w.WebhookID)
			}
			return nil, &UnknownCreateError{Kind: "webhook", Candidates: ids,
				MayExist: fmt.Sprintf("webhooks named %q posting to %s", name, RedactURLString(*in.URL))}
		},
	})
}

// describes reports whether w has exactly the configuration in creates.
func (in WebhookInput) describes(w Webhook) bool {
	name, enabled := "", true
	if in.Name != nil {
		name = *in.Name
	}
	if in.Enabled != nil {
		enabled = *in.Enabled
	}
	events, got := slices.Clone(in.Events), slices.Clone(w.Events)
	slices.Sort(events)
	slices.Sort(got)
	return w.Name == name && sameURL(w.URL, *in.URL) && w.Enabled == enabled && slices.Equal(slices.Compact(events), slices.Compact(got))
}

// sameURL compares URLs as a server that normalises them might store them:
// scheme and host in any case, a path with or without its final slash.
func sameURL(a, b string) bool {
	ua, ea := url.Parse(a)
	ub, eb := url.Parse(b)
	if ea != nil || eb != nil {
		return a == b
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") && ua.RawQuery == ub.RawQuery
}

// UpdateWebhook changes the fields set in in.
func (c *Client) UpdateWebhook(ctx context.Context, id string, in WebhookInput) (*Webhook, error) {
	if err := in.Validate(false); err != nil {
		return nil, fmt.Errorf("update webhook %q: %w", id, err)
	}
	var w wireWebhook
	_, err := c.callAPI(ctx, apiCall{op: "update webhook " + strconv.Quote(id), method: http.MethodPatch,
		path: "/events/webhooks/" + pathSeg(id), subject: id, body: in.wire(), class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	return w.toWebhook(), nil
}

// GetWebhook reads one webhook.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w wireWebhook
	_, err := c.callAPI(ctx, apiCall{op: "get webhook " + strconv.Quote(id), method: http.MethodGet,
		path: "/events/webhooks/" + pathSeg(id), subject: id, class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	return w.toWebhook(), nil
}

// ListWebhooks lists the team's webhooks.
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	var w []wireWebhook
	_, err := c.callAPI(ctx, apiCall{op: "list webhooks", method: http.MethodGet, path: "/events/webhooks", class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	out := make([]Webhook, 0, len(w))
	for _, x := range w {
		out = append(out, *x.toWebhook())
	}
	return out, nil
}

// DeleteWebhook unregisters a webhook.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	_, err := c.callAPI(ctx, apiCall{op: "delete webhook " + strconv.Quote(id), method: http.MethodDelete,
		path: "/events/webhooks/" + pathSeg(id), subject: id, class: retryIdempotent})
	return err
}
