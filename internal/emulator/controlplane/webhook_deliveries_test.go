package controlplane_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/delivery"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// A webhook whose endpoint answers 500: every attempt (first and retries)
// is in its history as a failed http_error with the 500 and its body,
// grouped by event; filters, paging and stats agree, and every exchange
// passes the newest spec.
func TestWebhookDeliveriesRecordFailures(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "endpoint down", http.StatusInternalServerError)
	}))
	defer down.Close()
	c := emulatortest.Start(t, emulator.Options{WebhookRetryInterval: 10 * time.Millisecond})
	plain := c.HC
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}

	st, data, _ := c.API("POST", "/events/webhooks", map[string]any{"name": "down", "url": down.URL,
		"events": []string{sandboxes.EvCreated, sandboxes.EvKilled}, "signatureSecret": "s3cret-sig"})
	emulatortest.WantStatus(t, "create webhook", st, data, http.StatusCreated)
	hook := emulatortest.Decode[controlplane.WebhookJSON](t, data)
	base := "/events/webhooks/" + hook.ID

	since := time.Now().UTC().Add(-time.Second)
	for range 2 {
		sb := c.Create(map[string]any{})
		st, data, _ := c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	}
	// 4 events, each tried once and retried 3 times.
	const events, attemptsEach = 4, 4
	list := func(query string) controlplane.WebhookDeliveriesJSON {
		t.Helper()
		st, data, _ := c.API("GET", base+"/deliveries"+query, nil)
		emulatortest.WantStatus(t, "deliveries"+query, st, data, http.StatusOK)
		return emulatortest.Decode[controlplane.WebhookDeliveriesJSON](t, data)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := 0
		for _, g := range list("?limit=100").Data {
			n += len(g.Attempts)
		}
		if n == events*attemptsEach {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts recorded, want %d", n, events*attemptsEach)
		}
		time.Sleep(20 * time.Millisecond)
	}

	all := list("?limit=100")
	if len(all.Data) != events || all.NextCursor != nil {
		t.Fatalf("%d groups (next %v), want %d on one page", len(all.Data), all.NextCursor, events)
	}
	for _, g := range all.Data {
		for i, a := range g.Attempts {
			if a.Status != "failed" || a.ErrorClass == nil || *a.ErrorClass != delivery.ErrorHTTP ||
				a.ResponseHTTPStatusCode == nil || *a.ResponseHTTPStatusCode != 500 || a.ResponseBody == nil ||
				*a.ResponseBody != "endpoint down\n" || a.EventID != g.EventID || a.WebhookID != hook.ID || a.RequestURL != down.URL {
				t.Fatalf("attempt %d of %s: %+v", i, g.EventID, a)
			}
			var headers map[string]string
			if err := json.Unmarshal([]byte(a.RequestHeaders), &headers); err != nil || headers["E2b-Signature"] != delivery.Redacted {
				t.Fatalf("request headers %q: want the signature redacted", a.RequestHeaders)
			}
		}
	}
	if strings.Contains(string(mustJSON(t, all)), "s3cret-sig") {
		t.Fatal("the signing secret is in the delivery history")
	}

	// Paging one event at a time, newest first, then oldest first: every
	// event once, in order.
	for _, asc := range []string{"false", "true"} {
		var seen []string
		cursor := ""
		for page := 0; ; page++ {
			p := list("?limit=1&orderAsc=" + asc + cursor)
			for _, g := range p.Data {
				seen = append(seen, g.EventID)
			}
			if p.NextCursor == nil {
				break
			}
			if page > events {
				t.Fatalf("paging does not end: %v %s", seen, *p.NextCursor)
			}
			cursor = "&cursor=" + url.QueryEscape(*p.NextCursor)
		}
		want := all.Data
		if len(seen) != events {
			t.Fatalf("orderAsc=%s paged %v, want %d events", asc, seen, events)
		}
		for i := range seen {
			j := i
			if asc == "true" {
				j = events - 1 - i
			}
			if seen[i] != want[j].EventID {
				t.Fatalf("orderAsc=%s paged %v, newest-first list %v", asc, seen, want)
			}
		}
	}

	// Filters.
	if got := list("?deliveryStatus=success"); len(got.Data) != 0 {
		t.Fatalf("success filter: %+v", got.Data)
	}
	if got := list("?deliveryStatus=success,failed&limit=100"); len(got.Data) != events {
		t.Fatalf("both statuses: %d groups", len(got.Data))
	}
	killed := list("?eventType=" + sandboxes.EvKilled)
	if len(killed.Data) != 2 || killed.Data[0].EventType != sandboxes.EvKilled || killed.Data[1].EventType != sandboxes.EvKilled {
		t.Fatalf("killed filter: %+v", killed.Data)
	}
	if got := list("?end=" + url.QueryEscape(since.Format(time.RFC3339Nano))); len(got.Data) != 0 {
		t.Fatalf("before the first event: %+v", got.Data)
	}
	if got := list("?start=" + url.QueryEscape(since.Format(time.RFC3339Nano)) + "&limit=100"); len(got.Data) != events {
		t.Fatalf("since the first event: %d groups", len(got.Data))
	}

	// Stats count every attempt as failed.
	st, data, _ = c.API("GET", base+"/stats", nil)
	emulatortest.WantStatus(t, "stats", st, data, http.StatusOK)
	stats := emulatortest.Decode[controlplane.WebhookDeliveryStatsJSON](t, data)
	var bucketTotal, bucketFailed int64
	for _, b := range stats.Buckets {
		bucketTotal += b.Total
		bucketFailed += b.Failed
	}
	if stats.Total != events*attemptsEach || stats.Failed != stats.Total || bucketTotal != stats.Total || bucketFailed != stats.Failed ||
		len(stats.Buckets) == 0 || stats.DurationMs.Maximum < stats.DurationMs.Minimum {
		t.Fatalf("stats %+v", stats)
	}
	st, data, _ = c.API("GET", base+"/stats?end="+url.QueryEscape(since.Format(time.RFC3339Nano)), nil)
	emulatortest.WantStatus(t, "stats before", st, data, http.StatusOK)
	if before := emulatortest.Decode[controlplane.WebhookDeliveryStatsJSON](t, data); before.Total != 0 {
		t.Fatalf("stats before the first event %+v", before)
	}

	// Any range is answered in a bounded number of buckets covering it.
	for _, r := range []struct{ start, end string }{
		{"2025-01-01T00:00:00Z", "2025-01-01T00:30:00Z"}, {"2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
		{"2000-01-01T00:00:00Z", "2030-01-01T00:00:00Z"},
	} {
		st, data, _ = c.API("GET", base+"/stats?start="+r.start+"&end="+r.end, nil)
		emulatortest.WantStatus(t, "stats "+r.start+".."+r.end, st, data, http.StatusOK)
		b := emulatortest.Decode[controlplane.WebhookDeliveryStatsJSON](t, data).Buckets
		if len(b) == 0 || len(b) > 61 || b[0].Timestamp.After(mustTime(t, r.start)) || !b[len(b)-1].Timestamp.Before(mustTime(t, r.end)) {
			t.Fatalf("%s..%s: %d buckets from %v", r.start, r.end, len(b), b[0].Timestamp)
		}
	}

	// What E2B refuses (sent past the spec check, which refuses most of it too).
	c.HC = plain
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/events/webhooks/00000000-0000-4000-8000-000000000000/deliveries", 404},
		{"/events/webhooks/00000000-0000-4000-8000-000000000000/stats", 404},
		{base + "/deliveries?limit=0", 400},
		{base + "/deliveries?limit=101", 400},
		{base + "/deliveries?deliveryStatus=pending", 400},
		{base + "/deliveries?start=yesterday", 400},
		{base + "/deliveries?cursor=not-a-cursor", 400},
		{base + "/stats?start=2030-01-02T00:00:00Z&end=2030-01-01T00:00:00Z", 400},
	} {
		st, data, _ := c.API("GET", tc.path, nil)
		emulatortest.WantStatus(t, tc.path, st, data, tc.want)
	}

	// A deleted webhook's history goes with it.
	st, data, _ = c.API("DELETE", base, nil)
	emulatortest.WantStatus(t, "delete webhook", st, data, http.StatusOK)
	st, data, _ = c.API("GET", base+"/deliveries", nil)
	emulatortest.WantStatus(t, "deliveries of a deleted webhook", st, data, http.StatusNotFound)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
