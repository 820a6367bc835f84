package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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
	if !s.Enqueue("gone", Event{}, []byte(`{}`)) || !s.Enqueue("hook", Event{}, []byte(`{"a":1}`)) {
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
	if !s.Enqueue("a", Event{}, nil) || s.Enqueue("b", Event{}, nil) {
		t.Fatal("a queue of one took both deliveries or neither")
	}
}

// Every attempt is recorded with E2B's fields: a 500 is a failed http_error
// with its status and body, the retry that is answered 204 a success, an
// unreachable URL a transport_error; the signature is redacted from the
// recorded headers and the secret appears nowhere.
func TestSenderRecordsEveryAttempt(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "endpoint down", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there any more
	recorded := make(chan Attempt, 10)
	var ids atomic.Int32
	s := Start(Config{
		Workers: 1, QueueSize: 4, Retries: 1, RetryInterval: time.Millisecond, AttemptTimeout: 10 * time.Second,
		Target: func(hookID string) (string, string, bool) {
			if hookID == "dead" {
				return deadURL, "whsec-dead", true
			}
			return srv.URL, "whsec-secret", true
		},
		RetryDropped: func(string) { t.Error("a retry was dropped") },
		NewID:        func() string { return fmt.Sprint(ids.Add(1)) },
		Logf:         t.Logf,
		Record:       func(a Attempt) { recorded <- a },
	})
	defer s.Stop()
	ev := Event{ID: "ev1", Type: "sandbox.lifecycle.created", SandboxID: "sbx"}
	s.Enqueue("hook", ev, []byte(`{"a":1}`))
	var got []Attempt
	for len(got) < 2 {
		select {
		case a := <-recorded:
			got = append(got, a)
		case <-time.After(30 * time.Second):
			t.Fatalf("attempts %+v, want two", got)
		}
	}
	failed, ok := got[0], got[1]
	if failed.Success || failed.ErrorClass != ErrorHTTP || failed.StatusCode != 500 || failed.Number != 1 ||
		failed.ResponseBody != "endpoint down\n" || failed.ErrorMessage != "" || failed.Event != ev || failed.URL != srv.URL || failed.RequestBody != `{"a":1}` {
		t.Fatalf("failed attempt %+v", failed)
	}
	if !ok.Success || ok.ErrorClass != "" || ok.StatusCode != 204 || ok.Number != 2 || ok.ID == failed.ID {
		t.Fatalf("retry %+v", ok)
	}
	var headers map[string]string
	if err := json.Unmarshal([]byte(failed.RequestHeaders), &headers); err != nil {
		t.Fatalf("request headers %q: %v", failed.RequestHeaders, err)
	}
	if headers["E2b-Signature"] != Redacted || headers["E2b-Webhook-Id"] != "hook" || headers["E2b-Delivery-Id"] != failed.ID {
		t.Fatalf("request headers %v: want the signature redacted and the rest kept", headers)
	}
	if strings.Contains(failed.RequestHeaders, Signature("whsec-secret", []byte(`{"a":1}`))) || strings.Contains(fmt.Sprintf("%+v", got), "whsec") {
		t.Fatal("the signature or the secret was recorded")
	}

	s.Enqueue("dead", ev, []byte(`{}`))
	for range 2 {
		select {
		case a := <-recorded:
			if a.Success || a.ErrorClass != ErrorTransport || a.StatusCode != 0 || a.ResponseHeaders != "" || a.ErrorMessage == "" {
				t.Fatalf("attempt to a closed port %+v", a)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no attempt recorded for a closed port")
		}
	}
}

func TestClassifyNamesE2BErrorClasses(t *testing.T) {
	live, stopped := context.Background(), func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{live, &net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, ErrorDNS},
		{live, fmt.Errorf("post: %w", context.DeadlineExceeded), ErrorTimeout},
		{live, &net.OpError{Op: "dial", Err: errors.New("connection refused")}, ErrorTransport},
		{stopped, context.Canceled, ErrorCanceled},
	} {
		if got := classify(tc.ctx, tc.err); got != tc.want {
			t.Errorf("classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
