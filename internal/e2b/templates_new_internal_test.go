package e2b

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"
)

// fakeTemplateCreates serves POST /v3/templates and the reads that settle it:
// the first drops times the connection is dropped before anything is made.
type fakeTemplateCreates struct {
	mu    sync.Mutex
	drops int
	made  int
}

func (f *fakeTemplateCreates) routes(t *testing.T) map[string]http.HandlerFunc {
	const build = "0cba64aa-ca41-4b29-bc7f-f27f81cecb4d"
	return map[string]http.HandlerFunc{
		"POST /v3/templates": func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.drops > 0 {
				f.drops--
				dropConnection(t, w)
				return
			}
			f.made++
			writeJSON(w, 202, `{"templateID":"tpl1","buildID":"`+build+`","public":false,"names":["team/app"],"tags":["default"],"aliases":["app"]}`)
		},
		"GET /templates/app": answerJSON(404, `{"code":404,"message":"template 'app' not found"}`),
		"GET /templates/tpl1": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"templateID":"tpl1","public":false,"aliases":["app"],"names":["team/app"],
				"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","lastSpawnedAt":null,"spawnCount":0,
				"builds":[{"buildID":"`+build+`","status":"waiting","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z",
				"cpuCount":2,"memoryMB":512,"envdVersion":"0.2.0"}]}`)
		},
	}
}

// A create whose connection dropped before E2B made anything: the name stays
// free until E2B can no longer be finishing it, so the create is sent again,
// and exactly one template is made.
func TestRequestNewTemplateSendsAgainWhenNothingWasMade(t *testing.T) {
	quickSettle(t, 100*time.Millisecond)
	f := &fakeTemplateCreates{drops: 1}
	rs := newRouteServer(t, f.routes(t))
	c := newTestClient(t, fastConfig(rs.URL))
	got, err := c.RequestNewTemplate(context.Background(), TemplateRequest{Name: "app"})
	if err != nil || got.TemplateID != "tpl1" {
		t.Fatalf("create after a dropped connection: %+v, %v", got, err)
	}
	if f.made != 1 || rs.count("POST /v3/templates") != 2 || rs.count("GET /templates/app") < 2 {
		t.Fatalf("made %d, posted %d, looked up %d: want one made after a second post, the name looked up until the window ended",
			f.made, rs.count("POST /v3/templates"), rs.count("GET /templates/app"))
	}
}

// An interrupted create (the caller's context ended while the request was
// under way) is looked up once more on a context of its own; nothing found
// is reported as unsettled, never sent again.
func TestRequestNewTemplateInterruptedIsNotSentAgain(t *testing.T) {
	quickSettle(t, 50*time.Millisecond)
	f := &fakeTemplateCreates{drops: 1}
	routes := f.routes(t)
	ctx, cancel := context.WithCancel(context.Background())
	post := routes["POST /v3/templates"]
	routes["POST /v3/templates"] = func(w http.ResponseWriter, r *http.Request) {
		cancel()
		time.Sleep(20 * time.Millisecond)
		post(w, r)
	}
	rs := newRouteServer(t, routes)
	c := newTestClient(t, fastConfig(rs.URL))
	_, err := c.RequestNewTemplate(ctx, TemplateRequest{Name: "app"})
	var unsettled *TemplateCreateUnsettledError
	if !errors.As(err, &unsettled) || unsettled.TemplateID != "" {
		t.Fatalf("want an unsettled create naming no template, got %v", err)
	}
	if rs.count("POST /v3/templates") != 1 || rs.count("GET /templates/app") == 0 {
		t.Fatalf("posted %d times, looked up %d times: want one post and a lookup", rs.count("POST /v3/templates"), rs.count("GET /templates/app"))
	}
}
