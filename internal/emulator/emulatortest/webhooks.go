package emulatortest

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Delivery is one webhook delivery a HookReceiver received.
type Delivery struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// HookReceiver is a webhook endpoint (serve it with httptest) that records deliveries; it
// answers 503 to the first FailFirst of them, so that the sender retries.
type HookReceiver struct {
	FailFirst int
	mu        sync.Mutex
	got       []Delivery
}

// ServeHTTP records a delivery.
func (h *HookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, Delivery{Header: r.Header.Clone(), Body: body, At: time.Now()})
	if len(h.got) <= h.FailFirst {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

// Deliveries are the deliveries received so far, in arrival order.
func (h *HookReceiver) Deliveries() []Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Delivery(nil), h.got...)
}

// VerifySignature is the check E2B's documentation gives receivers: standard base64 of
// sha256(secret + body) without its padding (E2B's docs once showed a URL-safe variant and
// corrected it: deliveries carry '+' and '/').
func VerifySignature(secret string, body []byte, sig string) bool {
	sum := sha256.Sum256([]byte(secret + string(body)))
	return strings.TrimRight(base64.StdEncoding.EncodeToString(sum[:]), "=") == sig
}
