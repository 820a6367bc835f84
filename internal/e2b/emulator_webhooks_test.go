package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Webhooks and events are in E2B's newest spec: every exchange is validated.
func TestWebhookAndEventsThroughTheClient(t *testing.T) {
	e := newEnv(t)
	ev := e.c
	url, secret, on := "http://127.0.0.1:9/hook", "s", true
	wh, err := ev.CreateWebhook(e.ctx, e2b.WebhookInput{URL: &url, SignatureSecret: &secret, Enabled: &on,
		Events: []string{"sandbox.lifecycle.created", "sandbox.lifecycle.killed"}})
	if err != nil || wh.WebhookID == "" || !wh.Enabled {
		t.Fatalf("create = %+v, %v", wh, err)
	}
	if _, err := ev.CreateWebhook(e.ctx, e2b.WebhookInput{URL: &url, SignatureSecret: &secret, Events: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "unknown event type") {
		t.Fatalf("bad event type: %v", err)
	}
	off := false
	if u, err := ev.UpdateWebhook(e.ctx, wh.WebhookID, e2b.WebhookInput{Enabled: &off}); err != nil || u.Enabled || u.URL != url {
		t.Fatalf("update = %+v, %v", u, err)
	}
	if l, err := ev.ListWebhooks(e.ctx); err != nil || len(l) != 1 {
		t.Fatalf("list = %+v, %v", l, err)
	}
	sb := e.create(t, e2b.CreateSandboxRequest{})
	if err := e.c.KillSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	evs, err := ev.ListSandboxEvents(e.ctx, e2b.ListEventsParams{SandboxID: sb.SandboxID, Ascending: true})
	if err != nil || len(evs) != 2 || evs[0].Type != "sandbox.lifecycle.created" || evs[1].Type != "sandbox.lifecycle.killed" {
		t.Fatalf("events = %+v, %v", evs, err)
	}
	one, err := ev.ListSandboxEvents(e.ctx, e2b.ListEventsParams{Limit: 1, Types: []string{"sandbox.lifecycle.created"}})
	if err != nil || len(one) != 1 || one[0].SandboxID != sb.SandboxID {
		t.Fatalf("filtered = %+v, %v", one, err)
	}
	if err := ev.DeleteWebhook(e.ctx, wh.WebhookID); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.GetWebhook(e.ctx, wh.WebhookID); !e2b.IsNotFound(err) {
		t.Fatalf("get deleted: %v", err)
	}
}
