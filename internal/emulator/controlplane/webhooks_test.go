package controlplane_test

import (
	"encoding/json"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/delivery"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// A digest whose standard base64 holds '+' and '/' tells the two alphabets apart.
func TestWebhookSignatureIsStandardBase64WithoutPadding(t *testing.T) {
	t.Parallel()
	body := []byte(`{"n":0}`)
	sig := delivery.Signature("whsec", body)
	if !strings.ContainsAny(sig, "+/") || strings.Contains(sig, "=") {
		t.Fatalf("signature %q is not standard unpadded base64 (this body's has '+' or '/')", sig)
	}
	if !emulatortest.VerifySignature("whsec", body, sig) {
		t.Fatalf("signature %q does not verify as E2B documents", sig)
	}
}

func TestWebhooksDeliverSignedLifecycleEvents(t *testing.T) {
	t.Parallel()
	ok := &emulatortest.HookReceiver{}
	flaky := &emulatortest.HookReceiver{FailFirst: 2}
	okSrv, flakySrv := httptest.NewServer(ok), httptest.NewServer(flaky)
	defer okSrv.Close()
	defer flakySrv.Close()
	c := emulatortest.Start(t, emulator.Options{WebhookRetryInterval: 100 * time.Millisecond})

	all := []string{sandboxes.EvCreated, sandboxes.EvPaused, sandboxes.EvResumed, sandboxes.EvKilled}
	st, data, _ := c.API("POST", "/events/webhooks", map[string]any{"name": "all", "url": okSrv.URL, "enabled": true, "events": all, "signatureSecret": "s3cret"})
	emulatortest.WantStatus(t, "create webhook", st, data, http.StatusCreated)
	hook := emulatortest.Decode[controlplane.WebhookJSON](t, data)
	if strings.Contains(string(data), "s3cret") {
		t.Fatalf("the webhook answer carries its secret: %s", data)
	}
	st, data, _ = c.API("POST", "/events/webhooks", map[string]any{"name": "flaky", "url": flakySrv.URL, "events": []string{sandboxes.EvCreated}, "signatureSecret": "other"})
	emulatortest.WantStatus(t, "create flaky webhook", st, data, http.StatusCreated)
	for _, bad := range []map[string]any{
		{"url": okSrv.URL, "events": []string{"sandbox.lifecycle.exploded"}, "signatureSecret": "x"},
		{"url": "ftp://x", "events": all, "signatureSecret": "x"},
		{"url": okSrv.URL, "events": all},
	} {
		if st, data, _ := c.API("POST", "/events/webhooks", bad); st != http.StatusBadRequest {
			t.Errorf("create %v: %d %s", bad, st, data)
		}
	}

	sb := c.Create(map[string]any{"metadata": map[string]string{"who": "test"}})
	for _, step := range []string{"/pause", "/resume"} {
		st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+step, map[string]any{})
		if st >= 300 {
			t.Fatalf("%s: %d %s", step, st, data)
		}
	}
	st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)

	emulatortest.Eventually(t, "four deliveries and three attempts", func() bool { return len(ok.Deliveries()) == 4 && len(flaky.Deliveries()) == 3 })
	var evsSeen []store.Event // two workers deliver: arrival order is not event order
	ids := map[string]bool{}
	for _, d := range ok.Deliveries() {
		if !emulatortest.VerifySignature("s3cret", d.Body, d.Header.Get("e2b-signature")) {
			t.Fatalf("signature does not verify: %v %s", d.Header, d.Body)
		}
		if d.Header.Get("e2b-webhook-id") != hook.ID || d.Header.Get("e2b-signature-version") != "v1" {
			t.Fatalf("headers %v", d.Header)
		}
		ids[d.Header.Get("e2b-delivery-id")] = true
		var ev store.Event
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.SandboxID != sb.SandboxID || ev.Version != "v2" || ev.EventData["sandbox_metadata"].(map[string]any)["who"] != "test" {
			t.Fatalf("event %s", d.Body)
		}
		evsSeen = append(evsSeen, ev)
	}
	sort.Slice(evsSeen, func(i, j int) bool { return evsSeen[i].Timestamp.Before(evsSeen[j].Timestamp) })
	var types []string
	for _, ev := range evsSeen {
		types = append(types, ev.Type)
	}
	if strings.Join(types, ",") != strings.Join(all, ",") {
		t.Fatalf("delivered %v, want %v", types, all)
	}
	retries := flaky.Deliveries()
	for i, d := range retries {
		if !emulatortest.VerifySignature("other", d.Body, d.Header.Get("e2b-signature")) || ids[d.Header.Get("e2b-delivery-id")] {
			t.Fatalf("attempt %d: bad signature or reused delivery ID: %v", i, d.Header)
		}
		ids[d.Header.Get("e2b-delivery-id")] = true
		if i > 0 && d.At.Sub(retries[i-1].At) < 100*time.Millisecond {
			t.Fatalf("retry %d came %s after the previous attempt, before the retry interval", i, d.At.Sub(retries[i-1].At))
		}
	}

	// Polling: newest first by default, filters by type and sandbox.
	st, data, _ = c.API("GET", "/events/sandboxes/"+sb.SandboxID+"?orderAsc=true", nil)
	emulatortest.WantStatus(t, "events", st, data, http.StatusOK)
	evs := emulatortest.Decode[[]store.Event](t, data)
	if len(evs) != 4 || evs[0].Type != sandboxes.EvCreated || evs[3].Type != sandboxes.EvKilled {
		t.Fatalf("events %s", data)
	}
	st, data, _ = c.API("GET", "/events/sandboxes?types="+sandboxes.EvPaused+"&limit=1", nil)
	emulatortest.WantStatus(t, "filtered events", st, data, http.StatusOK)
	if evs := emulatortest.Decode[[]store.Event](t, data); len(evs) != 1 || evs[0].Type != sandboxes.EvPaused {
		t.Fatalf("filtered %s", data)
	}
	st, data, _ = c.API("PATCH", "/events/webhooks/"+hook.ID, map[string]any{"enabled": false})
	emulatortest.WantStatus(t, "disable", st, data, http.StatusOK)
	if got := emulatortest.Decode[controlplane.WebhookJSON](t, data); got.Enabled || got.URL != okSrv.URL {
		t.Fatalf("after PATCH %s", data)
	}
	st, data, _ = c.API("DELETE", "/events/webhooks/"+hook.ID, nil)
	emulatortest.WantStatus(t, "delete", st, data, http.StatusOK)
}

// A receiver that hangs (each attempt waits 10 s) does not hold up the API:
// every call below must answer well within that.
func TestWebhookDeliveryNeverBlocksTheAPI(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer stuck.Close()
	defer close(release)
	c := emulatortest.Start(t, emulator.Options{})
	c.HC.Timeout = 5 * time.Second
	st, data, _ := c.API("POST", "/events/webhooks", map[string]any{"name": "stuck", "url": stuck.URL, "events": []string{sandboxes.EvCreated, sandboxes.EvKilled}, "signatureSecret": "x"})
	emulatortest.WantStatus(t, "create webhook", st, data, http.StatusCreated)
	for range 5 {
		sb := c.Create(map[string]any{})
		st, data, _ := c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	}
}
