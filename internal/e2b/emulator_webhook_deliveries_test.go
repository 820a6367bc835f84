package e2b_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A webhook whose endpoint answers 500: the client reads its failed
// attempts page by page (a page of 1 event), filtered by status, type and
// time, and stats that count them; every exchange passes the newest spec.
func TestWebhookDeliveriesThroughTheClient(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer down.Close()
	e := newEnvWith(t, emulator.Options{WebhookRetryInterval: 10 * time.Millisecond})
	secret := "whsec-client-test"
	wh, err := e.c.CreateWebhook(e.ctx, e2b.WebhookInput{URL: &down.URL, SignatureSecret: &secret,
		Events: []string{"sandbox.lifecycle.created", "sandbox.lifecycle.killed"}})
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Second)
	for range 2 {
		sb := e.create(t, e2b.CreateSandboxRequest{})
		if err := e.c.KillSandbox(e.ctx, sb.SandboxID); err != nil {
			t.Fatal(err)
		}
	}
	const events, attempts = 4, 4 // each event: the first attempt and 3 retries
	var all []e2b.WebhookDeliveryGroup
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if all, err = e.c.ListWebhookDeliveries(e.ctx, wh.WebhookID, e2b.WebhookDeliveryQuery{PageSize: 1}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range all {
			n += len(g.Attempts)
		}
		if n == events*attempts {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts after 30s, want %d: %+v", n, events*attempts, all)
		}
	}
	if len(all) != events {
		t.Fatalf("%d events paged one at a time, want %d", len(all), events)
	}
	for _, g := range all {
		for _, a := range g.Attempts {
			if a.Status != e2b.DeliveryFailed || a.ErrorClass != "http_error" || a.ResponseStatusCode != 500 ||
				a.ResponseBody != "down\n" || a.RequestURL != down.URL || a.Timestamp.Before(since) {
				t.Fatalf("attempt %+v", a)
			}
			var h map[string]string
			if err := json.Unmarshal([]byte(a.RequestHeaders), &h); err != nil || h["E2b-Signature"] == "" || strings.Contains(a.RequestHeaders, secret) {
				t.Fatalf("request headers %q", a.RequestHeaders)
			}
		}
	}
	killed, err := e.c.ListWebhookDeliveries(e.ctx, wh.WebhookID, e2b.WebhookDeliveryQuery{
		EventTypes: []string{"sandbox.lifecycle.killed"}, Statuses: []string{e2b.DeliveryFailed}, Start: since, Ascending: true, MaxEvents: 1})
	if err != nil || len(killed) != 1 || killed[0].EventType != "sandbox.lifecycle.killed" {
		t.Fatalf("killed, first one = %+v, %v", killed, err)
	}
	if ok, err := e.c.ListWebhookDeliveries(e.ctx, wh.WebhookID, e2b.WebhookDeliveryQuery{Statuses: []string{e2b.DeliverySuccess}}); err != nil || len(ok) != 0 {
		t.Fatalf("successes = %+v, %v", ok, err)
	}
	if before, err := e.c.ListWebhookDeliveries(e.ctx, wh.WebhookID, e2b.WebhookDeliveryQuery{End: since}); err != nil || len(before) != 0 {
		t.Fatalf("before the first event = %+v, %v", before, err)
	}
	stats, err := e.c.GetWebhookStats(e.ctx, wh.WebhookID, time.Time{}, time.Time{})
	if err != nil || stats.Total != events*attempts || stats.Failed != stats.Total || len(stats.Buckets) == 0 {
		t.Fatalf("stats = %+v, %v", stats, err)
	}
	// Refused before any request.
	for _, q := range []e2b.WebhookDeliveryQuery{{Statuses: []string{"pending"}}, {PageSize: 101}, {Start: since, End: since}} {
		if _, err := e.c.ListWebhookDeliveries(e.ctx, wh.WebhookID, q); err == nil {
			t.Errorf("query %+v accepted", q)
		}
	}
	if _, err := e.c.ListWebhookDeliveries(e.ctx, "00000000-0000-4000-8000-000000000000", e2b.WebhookDeliveryQuery{}); !e2b.IsNotFound(err) {
		t.Fatalf("deliveries of no webhook: %v", err)
	}
}
