// This test adds one thing the scenario alone cannot: every request the SDK
// sends and every answer the emulator gives is validated against E2B's
// published OpenAPI specs and envd's Connect protocol, through a validating
// reverse proxy.

package conformance

import (
	"bytes"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// sdkVersions are the npm aliases in package.json and their pinned versions.
var sdkVersions = []struct{ module, version string }{
	{"e2b", "2.51.0"},
	{"e2b-2-50", "2.50.0"},
}

// notInSpec matches the operations SDK 2.51.0 calls that the SDK-side spec
// (internal/e2bspec's openapi.yml, 2026-08-21) predates: they are checked
// against the newest spec instead.
var notInSpec = regexp.MustCompile(`^POST /v2/sandboxes(/[^/]+/connect)?$`)

func TestSDKTrafficMatchesSpec(t *testing.T) {
	if os.Getenv("E2B_CONFORMANCE") != "1" {
		t.Skip("runs E2B's JavaScript SDK (node + conformance/node_modules): use bash conformance/run.sh, which sets E2B_CONFORMANCE=1")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: %v", err)
	}
	if _, err := os.Stat(filepath.Join("node_modules", "e2b", "package.json")); err != nil {
		t.Fatalf("SDK not installed: run npm ci in conformance/ (%v)", err)
	}
	srv, err := emulator.Start(emulator.Options{Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatalf("starting the emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the emulator: %v", err)
		}
	})

	for _, sdk := range sdkVersions {
		t.Run(sdk.version, func(t *testing.T) {
			// Both fail t at cleanup for every violation.
			v := spectest.NewFor(t, e2bspec.SDK)
			newest := spectest.NewFor(t, e2bspec.Newest)
			proxy := &splitTransport{validating: v.Wrap(nil), newer: newest.Wrap(nil)}
			proxyURL := startProxy(t, srv.APIURL(), proxy)

			cmd := exec.Command(node, "scenario.mjs", sdk.module, sdk.version)
			cmd.Env = append(withoutE2BEnv(os.Environ()),
				"E2B_API_URL="+proxyURL, "E2B_SANDBOX_URL="+proxyURL, "E2B_API_KEY="+srv.APIKey())
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("scenario through the validating proxy: %v\n%s", err, out.String())
			} else {
				t.Logf("scenario: %s", lastLine(out.String()))
			}

			seen := v.Seen()
			for _, kind := range []string{"control", "envd", "connect"} {
				if seen[kind] == 0 {
					t.Errorf("the validator saw no %s traffic (seen: %v)", kind, seen)
				}
			}
			t.Logf("validated exchanges: %v against the SDK-side spec, %v against the newest spec: %v", seen, newest.Seen(), proxy.newerOps())
		})
	}
}

// splitTransport validates the operations in notInSpec against the newest
// spec and everything else against the SDK-side one.
type splitTransport struct {
	validating, newer http.RoundTripper

	mu   sync.Mutex
	skip map[string]int
}

func (s *splitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !notInSpec.MatchString(req.Method + " " + req.URL.Path) {
		return s.validating.RoundTrip(req)
	}
	op := "POST /v2/sandboxes"
	if strings.HasSuffix(req.URL.Path, "/connect") {
		op = "POST /v2/sandboxes/{id}/connect"
	}
	s.mu.Lock()
	if s.skip == nil {
		s.skip = map[string]int{}
	}
	s.skip[op]++
	s.mu.Unlock()
	return s.newer.RoundTrip(req)
}

func (s *splitTransport) newerOps() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.skip)
}

// startProxy serves a reverse proxy to target on a random loopback port.
// Streams are flushed as they arrive (Connect server streaming).
func startProxy(t *testing.T, target string, transport http.RoundTripper) string {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatalf("emulator URL %q: %v", target, err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(to) },
		Transport:     transport,
		FlushInterval: -1,
		// A sandbox killed mid-stream drops the connection on purpose.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	ts := httptest.NewServer(rp)
	t.Cleanup(ts.Close)
	return ts.URL
}

func withoutE2BEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "E2B_") {
			out = append(out, kv)
		}
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
