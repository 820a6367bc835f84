package controlplane

import (
	"net/http"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// A webhook's delivery stats over [start, end) (default: the last 24
// hours): totals, failures and durations, overall and per time bucket. The
// buckets cover the whole range, empty ones included, and are as narrow as
// keeps them to maxStatsBuckets.

const maxStatsBuckets = 60

var statsBucketWidths = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// WebhookDeliveryDurationJSON is E2B's WebhookDeliveryDurationStats (ms).
type WebhookDeliveryDurationJSON struct {
	Minimum float64 `json:"minimum"`
	Average float64 `json:"average"`
	Maximum float64 `json:"maximum"`
}

// WebhookDeliveryStatsBucketJSON is E2B's WebhookDeliveryStatsBucket.
type WebhookDeliveryStatsBucketJSON struct {
	Timestamp  time.Time                   `json:"timestamp"`
	Total      int64                       `json:"total"`
	Failed     int64                       `json:"failed"`
	DurationMs WebhookDeliveryDurationJSON `json:"durationMs"`
}

// WebhookDeliveryStatsJSON is E2B's WebhookDeliveryStats.
type WebhookDeliveryStatsJSON struct {
	Buckets    []WebhookDeliveryStatsBucketJSON `json:"buckets"`
	Total      int64                            `json:"total"`
	Failed     int64                            `json:"failed"`
	DurationMs WebhookDeliveryDurationJSON      `json:"durationMs"`
}

// tally sums attempts.
type tally struct {
	total, failed int64
	sum, min, max time.Duration
}

func (t *tally) add(d store.WebhookDelivery) {
	if t.total == 0 || d.Duration < t.min {
		t.min = d.Duration
	}
	t.max = max(t.max, d.Duration)
	t.total++
	t.sum += d.Duration
	if !d.Success {
		t.failed++
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (t tally) durations() WebhookDeliveryDurationJSON {
	if t.total == 0 {
		return WebhookDeliveryDurationJSON{}
	}
	return WebhookDeliveryDurationJSON{Minimum: ms(t.min), Average: ms(t.sum) / float64(t.total), Maximum: ms(t.max)}
}

func statsBucketWidth(span time.Duration) time.Duration {
	for _, w := range statsBucketWidths {
		if span/w < maxStatsBuckets {
			return w
		}
	}
	days := int64(span/(24*time.Hour))/maxStatsBuckets + 1 // a range of many months: whole days
	return time.Duration(days) * 24 * time.Hour
}

func (s *API) handleWebhookStats(w http.ResponseWriter, r *http.Request) {
	history, ok := s.webhookHistory(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	end, hasEnd := timeParam(q, "end")
	if !hasEnd {
		end = time.Now().UTC()
	}
	start, hasStart := timeParam(q, "start")
	if !hasStart {
		start = end.Add(-24 * time.Hour)
	}
	if !start.Before(end) {
		writeError(w, http.StatusBadRequest, "start must be before end")
		return
	}
	width := statsBucketWidth(end.Sub(start))
	first := start.UTC().Truncate(width)
	buckets := make([]tally, int(end.Sub(first)/width)+1)
	var all tally
	for _, d := range history {
		if d.Timestamp.Before(start) || !d.Timestamp.Before(end) {
			continue
		}
		all.add(d)
		buckets[d.Timestamp.Sub(first)/width].add(d)
	}
	out := WebhookDeliveryStatsJSON{Buckets: []WebhookDeliveryStatsBucketJSON{}, Total: all.total, Failed: all.failed, DurationMs: all.durations()}
	for i, b := range buckets {
		at := first.Add(time.Duration(i) * width)
		if !at.Before(end) {
			break
		}
		out.Buckets = append(out.Buckets, WebhookDeliveryStatsBucketJSON{Timestamp: at, Total: b.total, Failed: b.failed, DurationMs: b.durations()})
	}
	httpjson.Write(w, http.StatusOK, out)
}
