package e2b

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
)

// fakeCreates is a control plane whose creates take effect and then, for
// the first dropN requests, lose the answer.
type fakeCreates struct {
	mu        sync.Mutex
	sandboxes []map[string]string // metadata of each created sandbox
	dropN     int
	status5xx bool
}

func (f *fakeCreates) routes(t *testing.T) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"POST /sandboxes": func(w http.ResponseWriter, r *http.Request) {
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
			case drop && f.status5xx:
				writeJSON(w, 504, `{"code":504,"message":"placement timeout"}`)
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
			f.mu.Unlock()
			if n == 0 {
				writeJSON(w, 200, `[]`)
				return
			}
			writeJSON(w, 200, `[{"sandboxID":"isb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.6.13",
				"startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z","cpuCount":2,"memoryMB":512,"diskSizeMB":0,
				"metadata":{"`+IdempotencyMetadataKey+`":"tok-1"}}]`)
		},
		"GET /sandboxes/isb1": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"sandboxID":"isb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.6.13",
				"envdAccessToken":"tok-secret","startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z",
				"cpuCount":2,"memoryMB":512,"diskSizeMB":0}`)
		},
	}
}

func TestCreateWithTokenFindsTheSandboxAfterALostAnswer(t *testing.T) {
	for _, status5xx := range []bool{false, true} {
		f := &fakeCreates{dropN: 1, status5xx: status5xx}
		rs := newRouteServer(t, f.routes(t))
		c := newTestClient(t, fastConfig(rs.URL))
		sb, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{
			TemplateID: "base", Metadata: map[string]string{"owner": "me"}, IdempotencyToken: "tok-1",
		})
		if err != nil {
			t.Fatalf("5xx=%v: create: %v", status5xx, err)
		}
		if sb.SandboxID != "isb1" || sb.EnvdAccessToken != "tok-secret" {
			t.Fatalf("found sandbox %+v (token must come from GET)", sb)
		}
		if len(f.sandboxes) != 1 {
			t.Fatalf("5xx=%v: %d creates took effect, want exactly 1", status5xx, len(f.sandboxes))
		}
		if md := f.sandboxes[0]; md[IdempotencyMetadataKey] != "tok-1" || md["owner"] != "me" {
			t.Fatalf("metadata sent %v", md)
		}
	}
}

func TestCreateWithTokenRetriesWhenNothingWasCreated(t *testing.T) {
	f := &fakeCreates{}
	routes := f.routes(t)
	var posts int
	routes["POST /sandboxes"] = func(w http.ResponseWriter, r *http.Request) {
		posts++
		if posts == 1 {
			writeJSON(w, 503, `{"code":503,"message":"no capacity"}`) // failed without effect
			return
		}
		writeJSON(w, 201, sandboxJSON)
	}
	rs := newRouteServer(t, routes)
	old := createRecheckDelay
	createRecheckDelay = 0
	t.Cleanup(func() { createRecheckDelay = old })
	c := newTestClient(t, fastConfig(rs.URL))
	sb, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base", IdempotencyToken: "tok-2"})
	if err != nil || sb.SandboxID != "isb1" {
		t.Fatalf("create: %+v %v", sb, err)
	}
	if posts != 2 || rs.count("GET /v2/sandboxes") != 2 {
		t.Fatalf("posts=%d lookups=%d, want 2 and 2 (lookup + re-check)", posts, rs.count("GET /v2/sandboxes"))
	}
}

func TestCreateDoesNotRetryClientErrors(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /sandboxes": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 400, `{"code":400,"message":"Timeout must be greater than 0"}`)
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	_, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base", IdempotencyToken: "t"})
	if !IsBadRequest(err) || rs.count("POST /sandboxes") != 1 || rs.count("GET /v2/sandboxes") != 0 {
		t.Fatalf("400: %v, posts %d, lookups %d", err, rs.count("POST /sandboxes"), rs.count("GET /v2/sandboxes"))
	}
}

func TestPauseConflictAfterRetryMeansPaused(t *testing.T) {
	var n int
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /sandboxes/isb1/pause": func(w http.ResponseWriter, r *http.Request) {
			n++
			if n == 1 {
				dropConnection(t, w) // paused, answer lost
				return
			}
			writeJSON(w, 409, `{"code":409,"message":"Error pausing sandbox - sandbox 'isb1' is already paused"}`)
		},
		"POST /sandboxes/isb2/pause": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 409, `{"code":409,"message":"Error pausing sandbox - sandbox 'isb2' is already paused"}`)
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	if err := c.PauseSandbox(context.Background(), "isb1"); err != nil {
		t.Fatalf("409 on a retried pause must be success: %v", err)
	}
	if err := c.PauseSandbox(context.Background(), "isb2"); !IsConflict(err) {
		t.Fatalf("409 on the first attempt must stay a conflict: %v", err)
	}
}
