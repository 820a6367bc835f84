package e2b

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCreates is a control plane whose creates take effect and then, for
// the first dropN requests, lose the answer in the way fail says.
type fakeCreates struct {
	mu        sync.Mutex
	sandboxes []map[string]string // metadata of each created sandbox
	dropN     int
	fail      func(w http.ResponseWriter) // nil: drop the connection
	failLists int                         // the first failLists lookups answer 503
}

func (f *fakeCreates) routes(t *testing.T) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"POST /v2/sandboxes": func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Metadata map[string]string `json:"metadata"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				t.Errorf("create body: %v", err)
			}
			f.mu.Lock()
			f.sandboxes = append(f.sandboxes, body.Metadata)
			drop := f.dropN > 0
			f.dropN--
			f.mu.Unlock()
			switch {
			case drop && f.fail != nil:
				f.fail(w)
			case drop:
				dropConnection(t, w)
			default:
				writeJSON(w, 201, sandboxJSON)
			}
		},
		"GET /v2/sandboxes": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("state") != "running,paused" || r.URL.Query().Get("metadata") == "" {
				t.Errorf("lookup query %s", r.URL.RawQuery)
			}
			f.mu.Lock()
			n := len(f.sandboxes)
			failing := f.failLists > 0
			f.failLists--
			var token string
			if n > 0 {
				token = f.sandboxes[0][IdempotencyMetadataKey]
			}
			f.mu.Unlock()
			switch {
			case failing:
				writeJSON(w, 503, `{"code":503,"message":"busy"}`)
			case n == 0:
				writeJSON(w, 200, `[]`)
			default:
				writeJSON(w, 200, `[{"sandboxID":"isb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.6.13",
				"startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z","cpuCount":2,"memoryMB":512,"diskSizeMB":0,
				"metadata":{"`+IdempotencyMetadataKey+`":"`+token+`","owner":"me"}}]`)
			}
		},
		"GET /sandboxes/isb1": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"sandboxID":"isb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.6.13",
				"envdAccessToken":"tok-secret","startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z",
				"cpuCount":2,"memoryMB":512,"diskSizeMB":0,"metadata":{"`+IdempotencyMetadataKey+`":"x","owner":"me"}}`)
		},
	}
}

// quickSettle shortens the search for a lost create for one test.
func quickSettle(t *testing.T, window time.Duration) {
	oldWindow, oldDelay := createSettleWindow, createRecheckDelay
	createSettleWindow, createRecheckDelay = window, 5*time.Millisecond
	t.Cleanup(func() { createSettleWindow, createRecheckDelay = oldWindow, oldDelay })
}

func TestCreateFindsTheSandboxAfterALostAnswer(t *testing.T) {
	quickSettle(t, 200*time.Millisecond)
	cases := map[string]func(w http.ResponseWriter){
		"dropped connection": nil,
		"gateway timeout": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(504)
			_, _ = w.Write([]byte("<html>upstream request timeout</html>"))
		},
		"E2B's own 5xx": func(w http.ResponseWriter) { writeJSON(w, 504, `{"code":504,"message":"placement timeout"}`) },
	}
	for name, fail := range cases {
		f := &fakeCreates{dropN: 1, fail: fail}
		rs := newRouteServer(t, f.routes(t))
		c := newTestClient(t, fastConfig(rs.URL))
		sb, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{
			TemplateID: "base", Metadata: map[string]string{"owner": "me"},
		})
		if err != nil {
			t.Fatalf("%s: create: %v", name, err)
		}
		if sb.SandboxID != "isb1" || sb.EnvdAccessToken != "tok-secret" {
			t.Fatalf("%s: found sandbox %+v (token must come from GET)", name, sb)
		}
		if len(f.sandboxes) != 1 {
			t.Fatalf("%s: %d creates took effect, want exactly 1", name, len(f.sandboxes))
		}
		if md := f.sandboxes[0]; len(md[IdempotencyMetadataKey]) != 32 || md["owner"] != "me" {
			t.Fatalf("%s: metadata sent %v: want the owner and a random create token", name, md)
		}
	}
}

func TestCreateRetriesWhenNothingWasCreated(t *testing.T) {
	quickSettle(t, time.Second)
	f := &fakeCreates{}
	routes := f.routes(t)
	var posts int
	routes["POST /v2/sandboxes"] = func(w http.ResponseWriter, r *http.Request) {
		posts++
		if posts == 1 {
			writeJSON(w, 503, `{"code":503,"message":"no capacity"}`) // E2B's own answer: nothing made
			return
		}
		writeJSON(w, 201, sandboxJSON)
	}
	rs := newRouteServer(t, routes)
	c := newTestClient(t, fastConfig(rs.URL))
	sb, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	if err != nil || sb.SandboxID != "isb1" {
		t.Fatalf("create: %+v %v", sb, err)
	}
	if posts != 2 || rs.count("GET /v2/sandboxes") != 2 {
		t.Fatalf("posts=%d lookups=%d, want 2 and 2 (lookup + re-check)", posts, rs.count("GET /v2/sandboxes"))
	}
}

func TestCreateDoesNotRetryClientErrors(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /v2/sandboxes": answerJSON(400, `{"code":400,"message":"Timeout must be greater than 0"}`),
	})
	c := newTestClient(t, fastConfig(rs.URL))
	_, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	if !IsBadRequest(err) || rs.count("POST /v2/sandboxes") != 1 || rs.count("GET /v2/sandboxes") != 0 {
		t.Fatalf("400: %v, posts %d, lookups %d", err, rs.count("POST /v2/sandboxes"), rs.count("GET /v2/sandboxes"))
	}
}

func TestCreateRefusesTheReservedMetadataKey(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{})
	c := newTestClient(t, fastConfig(rs.URL))
	_, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base",
		Metadata: map[string]string{IdempotencyMetadataKey: "mine"}})
	if err == nil || !strings.Contains(err.Error(), "reserved") || rs.count("POST /v2/sandboxes") != 0 {
		t.Fatalf("reserved key: %v, posts %d", err, rs.count("POST /v2/sandboxes"))
	}
}

// TestCreateAfterTheCallersDeadlineStillFindsTheSandbox: the caller's
// context ends while the create is in flight; E2B makes the sandbox anyway.
// The client looks it up with a context of its own and hands it back with a
// *CreateInterruptedError, so the caller can keep it instead of orphaning it.
func TestCreateAfterTheCallersDeadlineStillFindsTheSandbox(t *testing.T) {
	quickSettle(t, 200*time.Millisecond)
	f := &fakeCreates{}
	routes := f.routes(t)
	inner := routes["POST /v2/sandboxes"]
	routes["POST /v2/sandboxes"] = func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond) // slower than the caller's deadline
		inner(w, r)
	}
	rs := newRouteServer(t, routes)
	c := newTestClient(t, fastConfig(rs.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	sb, err := c.CreateSandbox(ctx, CreateSandboxRequest{TemplateID: "base"})
	var ie *CreateInterruptedError
	if sb == nil || sb.SandboxID != "isb1" || !errors.As(err, &ie) || ie.SandboxID != "isb1" {
		t.Fatalf("create past the deadline: %+v, %v; want the sandbox and a *CreateInterruptedError", sb, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the error must carry the cause: %v", err)
	}
	if len(f.sandboxes) != 1 {
		t.Fatalf("%d creates, want 1", len(f.sandboxes))
	}
}

// TestCreateKeepsLookingWhileTheLookupFails settles the second suspected path:
// the create's answer is lost and the lookup fails at first. The client keeps
// looking within the settle window instead of giving up (which would orphan
// the sandbox), and when the lookup never works it says which token the
// sandbox carries rather than creating another one.
func TestCreateKeepsLookingWhileTheLookupFails(t *testing.T) {
	quickSettle(t, 2*time.Second)
	cfg := func(url string) Config {
		c := fastConfig(url)
		c.RetryMax = new(0) // each lookup is one request: the failures reach the create's own loop
		return c
	}
	f := &fakeCreates{dropN: 1, failLists: 3}
	rs := newRouteServer(t, f.routes(t))
	sb, err := newTestClient(t, cfg(rs.URL)).CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	if err != nil || sb.SandboxID != "isb1" || len(f.sandboxes) != 1 {
		t.Fatalf("lookup failing 3 times: %+v %v, %d creates; want the one sandbox", sb, err, len(f.sandboxes))
	}

	quickSettle(t, 100*time.Millisecond)
	f = &fakeCreates{dropN: 1, failLists: 1 << 20}
	rs = newRouteServer(t, f.routes(t))
	_, err = newTestClient(t, cfg(rs.URL)).CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	var ue *CreateUnsettledError
	if !errors.As(err, &ue) || len(f.sandboxes) != 1 {
		t.Fatalf("lookup never working: %v, %d creates; want a *CreateUnsettledError and no second create", err, len(f.sandboxes))
	}
	if ue.Token != f.sandboxes[0][IdempotencyMetadataKey] || !strings.Contains(err.Error(), ue.Token) {
		t.Fatalf("the error must name the token the sandbox carries: %v", err)
	}
}

func TestPauseOfAPausedSandboxSucceeds(t *testing.T) {
	state := map[string]string{"isb1": "paused", "isb2": "running"}
	routes := map[string]http.HandlerFunc{}
	for id, st := range state {
		routes["POST /sandboxes/"+id+"/pause"] = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 409, `{"code":409,"message":"Error pausing sandbox - sandbox '`+id+`' is already paused"}`)
		}
		routes["GET /sandboxes/"+id] = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"sandboxID":"`+id+`","templateID":"base","clientID":"c","state":"`+st+`","envdVersion":"0.6.13",
				"startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z","cpuCount":2,"memoryMB":512,"diskSizeMB":0}`)
		}
	}
	rs := newRouteServer(t, routes)
	c := newTestClient(t, fastConfig(rs.URL))
	if err := c.PauseSandbox(context.Background(), "isb1"); err != nil {
		t.Fatalf("pause of a paused sandbox must succeed: %v", err)
	}
	if err := c.PauseSandbox(context.Background(), "isb2"); !IsConflict(err) {
		t.Fatalf("a 409 while the sandbox is not paused (a transition) must stay a conflict: %v", err)
	}
}
