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

// Webhook delivery history: every attempt E2B made to deliver an event to
// a webhook, grouped by event, and aggregate stats over a time range.

// Delivery statuses E2B records for an attempt.
const (
	DeliverySuccess = "success"
	DeliveryFailed  = "failed"
)

// DeliveryStatuses are the statuses E2B filters deliveries by.
var DeliveryStatuses = []string{DeliverySuccess, DeliveryFailed}

// WebhookDeliveryPageMax is the most events E2B answers per page.
const WebhookDeliveryPageMax = 100

// WebhookDeliveryQuery filters and pages a webhook's delivery history.
type WebhookDeliveryQuery struct {
	Statuses   []string  // DeliverySuccess, DeliveryFailed; empty = both
	EventTypes []string  // empty = every type
	Start, End time.Time // attempts at or after Start, before End; zero = unbounded
	Ascending  bool      // oldest first (E2B's default is newest first)
	PageSize   int       // events per request, 1..100; 0 = E2B's default (25)
	MaxEvents  int       // events wanted in all; 0 = every one
}

// Validate applies E2B's rules for the query.
func (q WebhookDeliveryQuery) Validate() error {
	for _, s := range q.Statuses {
		if !slices.Contains(DeliveryStatuses, s) {
			return fmt.Errorf("unknown delivery status %q; E2B's are %v", s, DeliveryStatuses)
		}
	}
	if q.PageSize < 0 || q.PageSize > WebhookDeliveryPageMax {
		return fmt.Errorf("page size %d must be between 1 and %d", q.PageSize, WebhookDeliveryPageMax)
	}
	if q.MaxEvents < 0 {
		return fmt.Errorf("the number of events wanted must not be negative")
	}
	if !q.Start.IsZero() && !q.End.IsZero() && !q.Start.Before(q.End) {
		return fmt.Errorf("the range start %s must be before its end %s", q.Start.Format(time.RFC3339), q.End.Format(time.RFC3339))
	}
	return nil
}

// WebhookDeliveryGroup is an event and the attempts to deliver it.
type WebhookDeliveryGroup struct {
	EventID, EventType, SandboxID string
	Attempts                      []WebhookDeliveryAttempt
}

// WebhookDeliveryAttempt is one attempt to deliver an event.
type WebhookDeliveryAttempt struct {
	ID, Status     string
	Duration       time.Duration
	RequestURL     string
	RequestBody    string
	RequestHeaders string // JSON; E2B redacts sensitive values
	// ResponseStatusCode is 0, and the response fields empty, when no
	// answer came (ErrorClass then says why).
	ResponseStatusCode int
	ResponseBody       string
	ResponseHeaders    string
	ErrorClass         string // E2B's: http_error, dns_error, timeout, transport_error, request_error, signature_error, canceled; "" on success
	ErrorMessage       string
	Timestamp          time.Time
}

type wireDelivery struct {
	ID                     string    `json:"id"`
	Status                 string    `json:"status"`
	DurationMs             int64     `json:"durationMs"`
	RequestBody            string    `json:"requestBody"`
	RequestHeaders         string    `json:"requestHeaders"`
	RequestURL             string    `json:"requestUrl"`
	ResponseBody           *string   `json:"responseBody"`
	ResponseHeaders        *string   `json:"responseHeaders"`
	ResponseHTTPStatusCode *int      `json:"responseHttpStatusCode"`
	ErrorClass             *string   `json:"errorClass"`
	ErrorMessage           *string   `json:"errorMessage"`
	Timestamp              time.Time `json:"timestamp"`
}

type wireDeliveryGroup struct {
	EventID   string         `json:"eventId"`
	EventType string         `json:"eventType"`
	SandboxID string         `json:"sandboxId"`
	Attempts  []wireDelivery `json:"attempts"`
}

type wireDeliveries struct {
	Data       []wireDeliveryGroup `json:"data"`
	NextCursor *string             `json:"nextCursor"`
}

func orZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (w wireDelivery) attempt() WebhookDeliveryAttempt {
	return WebhookDeliveryAttempt{ID: w.ID, Status: w.Status, Duration: time.Duration(w.DurationMs) * time.Millisecond,
		RequestURL: w.RequestURL, RequestBody: w.RequestBody, RequestHeaders: w.RequestHeaders,
		ResponseStatusCode: orZero(w.ResponseHTTPStatusCode), ResponseBody: orZero(w.ResponseBody),
		ResponseHeaders: orZero(w.ResponseHeaders), ErrorClass: orZero(w.ErrorClass), ErrorMessage: orZero(w.ErrorMessage),
		Timestamp: w.Timestamp}
}

// ListWebhookDeliveries reads a webhook's delivery history, following
// nextCursor until it ends or q.MaxEvents events are read.
func (c *Client) ListWebhookDeliveries(ctx context.Context, webhookID string, q WebhookDeliveryQuery) ([]WebhookDeliveryGroup, error) {
	op := "list deliveries of webhook " + strconv.Quote(webhookID)
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	base := url.Values{"orderAsc": {strconv.FormatBool(q.Ascending)}}
	if len(q.Statuses) > 0 {
		base.Set("deliveryStatus", strings.Join(q.Statuses, ","))
	}
	if len(q.EventTypes) > 0 {
		base.Set("eventType", strings.Join(q.EventTypes, ","))
	}
	if !q.Start.IsZero() {
		base.Set("start", q.Start.UTC().Format(time.RFC3339Nano))
	}
	if !q.End.IsZero() {
		base.Set("end", q.End.UTC().Format(time.RFC3339Nano))
	}
	out := []WebhookDeliveryGroup{}
	seen := map[string]bool{}
	cursor := ""
	for {
		query := url.Values{}
		for k, v := range base {
			query[k] = v
		}
		size := q.PageSize
		if q.MaxEvents > 0 {
			left := q.MaxEvents - len(out)
			if size == 0 {
				size = min(left, WebhookDeliveryPageMax)
			}
			size = min(size, left)
		}
		if size > 0 {
			query.Set("limit", strconv.Itoa(size))
		}
		if cursor != "" {
			query.Set("cursor", cursor)
		}
		var page wireDeliveries
		_, err := c.callAPI(ctx, apiCall{op: op, method: http.MethodGet, subject: webhookID,
			path: "/events/webhooks/" + pathSeg(webhookID) + "/deliveries", query: query, class: retryIdempotent, out: &page})
		if err != nil {
			return nil, err
		}
		for _, g := range page.Data {
			group := WebhookDeliveryGroup{EventID: g.EventID, EventType: g.EventType, SandboxID: g.SandboxID,
				Attempts: make([]WebhookDeliveryAttempt, 0, len(g.Attempts))}
			for _, a := range g.Attempts {
				group.Attempts = append(group.Attempts, a.attempt())
			}
			out = append(out, group)
		}
		if page.NextCursor == nil || *page.NextCursor == "" || (q.MaxEvents > 0 && len(out) >= q.MaxEvents) {
			return out, nil
		}
		// A server that hands back a cursor it gave before would page forever.
		if seen[*page.NextCursor] || len(page.Data) == 0 {
			return nil, fmt.Errorf("%s: E2B answered a page that does not advance (cursor %q)", op, *page.NextCursor)
		}
		seen[*page.NextCursor] = true
		cursor = *page.NextCursor
	}
}

// DeliveryDurations are the minimum, average and maximum durations of
// delivery attempts.
type DeliveryDurations struct{ Minimum, Average, Maximum time.Duration }

// WebhookStatsBucket is the stats of one time bucket.
type WebhookStatsBucket struct {
	Start         time.Time
	Total, Failed int64
	Durations     DeliveryDurations
}

// WebhookStats is a webhook's delivery stats over a time range.
type WebhookStats struct {
	Total, Failed int64
	Durations     DeliveryDurations
	Buckets       []WebhookStatsBucket
}

type wireDurations struct {
	Minimum float64 `json:"minimum"`
	Average float64 `json:"average"`
	Maximum float64 `json:"maximum"`
}

func (w wireDurations) durations() DeliveryDurations {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return DeliveryDurations{Minimum: ms(w.Minimum), Average: ms(w.Average), Maximum: ms(w.Maximum)}
}

type wireStats struct {
	Buckets []struct {
		Timestamp  time.Time     `json:"timestamp"`
		Total      int64         `json:"total"`
		Failed     int64         `json:"failed"`
		DurationMs wireDurations `json:"durationMs"`
	} `json:"buckets"`
	Total      int64         `json:"total"`
	Failed     int64         `json:"failed"`
	DurationMs wireDurations `json:"durationMs"`
}

// GetWebhookStats reads a webhook's delivery stats over [start, end); zero
// times take E2B's defaults (the last 24 hours, up to now).
func (c *Client) GetWebhookStats(ctx context.Context, webhookID string, start, end time.Time) (*WebhookStats, error) {
	op := "get delivery stats of webhook " + strconv.Quote(webhookID)
	if !start.IsZero() && !end.IsZero() && !start.Before(end) {
		return nil, fmt.Errorf("%s: the range start %s must be before its end %s", op, start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	query := url.Values{}
	if !start.IsZero() {
		query.Set("start", start.UTC().Format(time.RFC3339Nano))
	}
	if !end.IsZero() {
		query.Set("end", end.UTC().Format(time.RFC3339Nano))
	}
	var w wireStats
	_, err := c.callAPI(ctx, apiCall{op: op, method: http.MethodGet, subject: webhookID,
		path: "/events/webhooks/" + pathSeg(webhookID) + "/stats", query: query, class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	out := &WebhookStats{Total: w.Total, Failed: w.Failed, Durations: w.DurationMs.durations(), Buckets: []WebhookStatsBucket{}}
	for _, b := range w.Buckets {
		out.Buckets = append(out.Buckets, WebhookStatsBucket{Start: b.Timestamp, Total: b.Total, Failed: b.Failed, Durations: b.DurationMs.durations()})
	}
	return out, nil
}
