package delivery

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

type received struct {
	hookID, deliveryID, signature string
	body                          string
}

// A failed attempt is retried with a new delivery ID and the same signed
// body, and a delivery for a webhook that is gone is not attempted.
func TestSenderRetriesAndSigns(t *testing.T) {
	got := make(chan received, 10)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Get("e2b-webhook-id"), r.Header.Get("e2b-delivery-id"), r.Header.Get("e2b-signature"), string(b)}
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	var ids atomic.Int32
	s := Start(Config{
		Workers: 1, QueueSize: 4, Retries: 3, RetryInterval: time.Millisecond, AttemptTimeout: 10 * time.Second,
		Target: func(hookID string) (string, string, bool) {
			return srv.URL, "whsec", hookID == "hook"
		},
		RetryDropped: func(string) { t.Error("a retry was dropped") },
		NewID:        func() string { return fmt.Sprint(ids.Add(1)) },
		Logf:         t.Logf,
	})
	defer s.Stop()
	if !s.Enqueue("gone", []byte(`{}`)) || !s.Enqueue("hook", []byte(`{"a":1}`)) {
		t.Fatal("enqueue refused with room in the queue")
	}
	var seen []received
	for len(seen) < 2 {
		select {
		case r := <-got:
			seen = append(seen, r)
		case <-time.After(30 * time.Second):
			t.Fatalf("deliveries %v, want a failed attempt and its retry", seen)
		}
	}
	for _, r := range seen {
		if r.hookID != "hook" || r.body != `{"a":1}` || r.signature != Signature("whsec", []byte(`{"a":1}`)) {
			t.Fatalf("delivery %+v", r)
		}
	}
	if seen[0].deliveryID == seen[1].deliveryID {
		t.Fatalf("the retry reused delivery ID %s", seen[0].deliveryID)
	}
}

func TestEnqueueDropsWhenTheQueueIsFull(t *testing.T) {
	s := &Sender{queue: make(chan job, 1)} // no workers: nothing drains it
	if !s.Enqueue("a", nil) || s.Enqueue("b", nil) {
		t.Fatal("a queue of one took both deliveries or neither")
	}
}
