package controlplane

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/delivery"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// A webhook's delivery history: every attempt the sender made, grouped by
// the event it carried, paged by event, newest first unless orderAsc. A
// group's time is its first attempt's; the cursor names the last group of
// a page by that time and its event ID, so attempts recorded meanwhile
// neither repeat nor skip a group. Filters apply to attempts: a group lists
// the attempts that match and is left out when none does.

// recordDelivery keeps an attempt the sender made.
func (s *API) recordDelivery(a delivery.Attempt) {
	s.opts.Store.RecordDelivery(store.WebhookDelivery{
		ID: a.ID, WebhookID: a.HookID, EventID: a.Event.ID, EventType: a.Event.Type, SandboxID: a.Event.SandboxID,
		Success: a.Success, Duration: a.Duration, RequestBody: a.RequestBody, RequestHeaders: a.RequestHeaders,
		RequestURL: a.URL, ResponseBody: a.ResponseBody, ResponseHeaders: a.ResponseHeaders, StatusCode: a.StatusCode,
		ErrorClass: a.ErrorClass, ErrorMessage: a.ErrorMessage, Timestamp: a.Start,
	})
}

// WebhookDeliveryJSON is E2B's WebhookDelivery.
type WebhookDeliveryJSON struct {
	ID                     string    `json:"id"`
	TeamID                 string    `json:"teamId"`
	WebhookID              string    `json:"webhookId"`
	EventID                string    `json:"eventId"`
	SandboxID              string    `json:"sandboxId"`
	EventType              string    `json:"eventType"`
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

// WebhookDeliveryGroupJSON is E2B's WebhookDeliveryGroup.
type WebhookDeliveryGroupJSON struct {
	EventID   string                `json:"eventId"`
	EventType string                `json:"eventType"`
	SandboxID string                `json:"sandboxId"`
	Attempts  []WebhookDeliveryJSON `json:"attempts"`
}

// WebhookDeliveriesJSON is E2B's WebhookDeliveriesListPayload.
type WebhookDeliveriesJSON struct {
	Data       []WebhookDeliveryGroupJSON `json:"data"`
	NextCursor *string                    `json:"nextCursor"`
}

func deliveryStatus(d store.WebhookDelivery) string {
	if d.Success {
		return "success"
	}
	return "failed"
}

func nonEmpty(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

func deliveryJSONOf(d store.WebhookDelivery) WebhookDeliveryJSON {
	out := WebhookDeliveryJSON{ID: d.ID, TeamID: TeamID, WebhookID: d.WebhookID, EventID: d.EventID,
		SandboxID: d.SandboxID, EventType: d.EventType, Status: deliveryStatus(d), DurationMs: d.Duration.Milliseconds(),
		RequestBody: d.RequestBody, RequestHeaders: d.RequestHeaders, RequestURL: d.RequestURL,
		ErrorClass: nonEmpty(d.ErrorClass), ErrorMessage: nonEmpty(d.ErrorMessage), Timestamp: d.Timestamp}
	if d.StatusCode != 0 { // an answer came: its body and headers, even empty
		code, body, headers := d.StatusCode, d.ResponseBody, d.ResponseHeaders
		out.ResponseHTTPStatusCode, out.ResponseBody, out.ResponseHeaders = &code, &body, &headers
	}
	return out
}

// commaList reads a form-style (explode: false) array parameter.
func commaList(q url.Values, name string) map[string]bool {
	out := map[string]bool{}
	for _, v := range q[name] {
		for _, item := range strings.Split(v, ",") {
			if item != "" {
				out[item] = true
			}
		}
	}
	return out
}

// timeParam reads a date-time parameter the validator has checked.
func timeParam(q url.Values, name string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, q.Get(name))
	return t, err == nil
}

type deliveryCursor struct {
	at      time.Time
	eventID string
}

func encodeDeliveryCursor(c deliveryCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.at.UnixNano(), 10) + ":" + c.eventID))
}

func parseDeliveryCursor(tok string) (deliveryCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return deliveryCursor{}, false
	}
	ns, id, found := strings.Cut(string(raw), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !found || err != nil || id == "" {
		return deliveryCursor{}, false
	}
	return deliveryCursor{at: time.Unix(0, n).UTC(), eventID: id}, true
}

// after reports whether the group at, eventID comes after the cursor in
// the order asked.
func (c deliveryCursor) after(at time.Time, eventID string, asc bool) bool {
	if !at.Equal(c.at) {
		return at.After(c.at) == asc
	}
	return eventID != c.eventID && (eventID > c.eventID) == asc
}

type deliveryGroup struct {
	at time.Time
	WebhookDeliveryGroupJSON
}

func (s *API) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	history, ok := s.webhookHistory(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	limit, ok := queryLimitBetween(w, q, 25, 1, 100)
	if !ok {
		return
	}
	asc := q.Get("orderAsc") == "true"
	var cursor *deliveryCursor
	if tok := q.Get("cursor"); tok != "" {
		c, ok := parseDeliveryCursor(tok)
		if !ok {
			writeError(w, http.StatusBadRequest, "Invalid cursor")
			return
		}
		cursor = &c
	}
	start, hasStart := timeParam(q, "start")
	end, hasEnd := timeParam(q, "end")
	statuses, types := commaList(q, "deliveryStatus"), commaList(q, "eventType")

	byEvent := map[string]*deliveryGroup{}
	var groups []*deliveryGroup
	for _, d := range history { // oldest first: a group's first attempt comes first
		if (hasStart && d.Timestamp.Before(start)) || (hasEnd && !d.Timestamp.Before(end)) ||
			(len(statuses) > 0 && !statuses[deliveryStatus(d)]) || (len(types) > 0 && !types[d.EventType]) {
			continue
		}
		g := byEvent[d.EventID]
		if g == nil {
			g = &deliveryGroup{at: d.Timestamp, WebhookDeliveryGroupJSON: WebhookDeliveryGroupJSON{
				EventID: d.EventID, EventType: d.EventType, SandboxID: d.SandboxID}}
			byEvent[d.EventID] = g
			groups = append(groups, g)
		}
		g.Attempts = append(g.Attempts, deliveryJSONOf(d))
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at) == asc
		}
		return a.EventID != b.EventID && (a.EventID < b.EventID) == asc
	})
	if cursor != nil {
		groups = slices.DeleteFunc(groups, func(g *deliveryGroup) bool { return !cursor.after(g.at, g.EventID, asc) })
	}
	out := WebhookDeliveriesJSON{Data: []WebhookDeliveryGroupJSON{}}
	for i, g := range groups {
		if i == limit {
			last := groups[i-1]
			next := encodeDeliveryCursor(deliveryCursor{at: last.at, eventID: last.EventID})
			out.NextCursor = &next
			break
		}
		out.Data = append(out.Data, g.WebhookDeliveryGroupJSON)
	}
	httpjson.Write(w, http.StatusOK, out)
}

// webhookHistory is the delivery history of the webhook {id}, oldest first;
// false (answered 404, as E2B words it) when there is no such webhook.
func (s *API) webhookHistory(w http.ResponseWriter, r *http.Request) ([]store.WebhookDelivery, bool) {
	hookID := r.PathValue("id")
	history, ok := s.opts.Store.WebhookDeliveries(hookID)
	if !ok {
		writeErrorf(w, http.StatusNotFound, "webhook '%s' not found", hookID)
	}
	return history, ok
}
