package e2b

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

const testAPIKey = "e2b_0123456789abcdef0123456789abcdef01234567"

// fastConfig returns a Config with small retry bounds for tests.
func fastConfig(apiURL string) Config {
	return Config{
		APIKey: testAPIKey, APIURL: apiURL, SandboxURL: apiURL, Version: "test",
		RequestTimeout: 5 * time.Second, RetryMax: new(3),
		RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond,
	}
}

func newTestClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// recordingLogger keeps every logged line.
type recordingLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordingLogger) Log(_ context.Context, level, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %s %v", level, msg, fields))
}

func (l *recordingLogger) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// routeServer serves a map of "METHOD /path" handlers and counts hits.
type routeServer struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	routes map[string]http.HandlerFunc
}

func newRouteServer(t *testing.T, routes map[string]http.HandlerFunc) *routeServer {
	t.Helper()
	rs := &routeServer{hits: map[string]int{}, routes: routes}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.Path
		rs.mu.Lock()
		rs.hits[key]++
		h := rs.routes[key]
		rs.mu.Unlock()
		if h == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"code":404,"message":"validation error: no matching operation was found (%s)"}`, key)
			return
		}
		h(w, r)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *routeServer) count(key string) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.hits[key]
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// answerJSON is a handler that answers every request with status and body.
func answerJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, status, body) }
}

// dropConnection closes the client connection without an answer.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Error("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}

// WriteTestContext writes files (a "/"-separated path to its content) into a
// new temporary folder and returns it as a build context. It is exported for
// the package's external tests (package e2b_test) as well.
func WriteTestContext(t *testing.T, files map[string]string) buildcontext.Context {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return buildcontext.Context{Dir: dir}
}
