package portproxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.110 Safari/537.3"

// A browser's navigation gets E2B's page; programs and a page's own scripts get JSON, as E2B
// decides it.
func TestAnswerNegotiation(t *testing.T) {
	t.Parallel()
	const page, js = "text/html; charset=utf-8", "application/json; charset=utf-8"
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    string
	}{
		{"no user agent", nil, js},
		{"curl", map[string]string{"User-Agent": "curl/8.5.0"}, js},
		{"bare browser", map[string]string{"User-Agent": chrome}, page},
		{"navigation", map[string]string{"User-Agent": chrome, "Sec-Fetch-Mode": "navigate", "Accept": "text/html,*/*"}, page},
		{"browser asking for JSON", map[string]string{"User-Agent": chrome, "Accept": "application/json"}, js},
		{"fetch", map[string]string{"User-Agent": chrome, "Sec-Fetch-Mode": "cors", "Accept": "*/*"}, js},
		{"websocket", map[string]string{"User-Agent": chrome, "Sec-Fetch-Mode": "websocket"}, js},
		{"xhr", map[string]string{"User-Agent": chrome, "X-Requested-With": "XMLHttpRequest"}, js},
		{"navigation with xhr header", map[string]string{"User-Agent": chrome, "Sec-Fetch-Mode": "navigate", "X-Requested-With": "XMLHttpRequest"}, page},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		SandboxNotFound("isb", "3000-isb.e2b.app").Write(w, r)
		if got := w.Header().Get("Content-Type"); got != tc.want || w.Code != http.StatusBadGateway {
			t.Errorf("%s: %d %q, want 502 %q", tc.name, w.Code, got, tc.want)
		}
	}
}

// A page shows what the request named, escaped: a host is the client's to write.
func TestAnswerPageEscapes(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("User-Agent", chrome)
	w := httptest.NewRecorder()
	ReservedRouteAnswer("<script>x</script>", "/init").Write(w, r)
	if body := w.Body.String(); w.Code != http.StatusNotFound || !strings.Contains(body, "&lt;script&gt;") || strings.Contains(body, "<script>x") {
		t.Fatalf("%d %s", w.Code, body)
	}
}

// The sandbox and port come from E2B's headers, else from the host name, as E2B's proxy reads
// them; a host that names no sandbox is the control plane's.
func TestTargetOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host    string
		headers map[string]string
		want    Target
		ok      bool
	}{
		{"3000-iabc123.e2b.app", nil, Target{"iabc123", 3000}, true},
		{"49983-iabc123-6532622b.e2b.local:8080", nil, Target{"iabc123", 49983}, true},
		{"127.0.0.1:3000", nil, Target{}, false},
		{"localhost:3000", nil, Target{}, false},
		{"api.e2b.app", nil, Target{}, false},
		{"x-iabc.e2b.app", nil, Target{}, false},
		{"127.0.0.1:3000", map[string]string{HeaderSandboxID: "iabc", HeaderSandboxPort: "8000"}, Target{"iabc", 8000}, true},
		{"127.0.0.1:3000", map[string]string{HeaderSandboxID: "iabc"}, Target{"iabc", EnvdPort}, true},
		{"127.0.0.1:3000", map[string]string{HeaderSandboxID: "iabc", HeaderSandboxPort: "http"}, Target{}, false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if got, ok := TargetOf(r); got != tc.want || ok != tc.ok {
			t.Errorf("%s %v: %+v %v, want %+v %v", tc.host, tc.headers, got, ok, tc.want, tc.ok)
		}
	}
}
