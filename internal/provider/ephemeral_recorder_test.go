package provider

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// e2bRecorder is a real HTTP proxy between the provider and the emulator that remembers what
// happened to each sandbox: its create answer (ID and tokens), the envd calls made to it, its
// timeout changes and its kill, in order. Tests use it to see a run's ephemeral sandboxes, which
// by design appear in no state, plan or output.
type e2bRecorder struct {
	srv *httptest.Server

	mu     sync.Mutex
	events []recordedEvent
}

type recordedEvent struct {
	at        time.Time
	kind      string // "create", "envd", "timeout", "kill", "connect"
	sandboxID string
	created   createdSandbox
}

type createdSandbox struct {
	SandboxID          string `json:"sandboxID"`
	EnvdAccessToken    string `json:"envdAccessToken"`
	TrafficAccessToken string `json:"trafficAccessToken"`
}

// newE2BRecorder proxies to the emulator until the test ends.
func newE2BRecorder(t *testing.T, emu *emulator.Server) *e2bRecorder {
	t.Helper()
	target, err := url.Parse(emu.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	r := &e2bRecorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // Stream envd output as it comes.
	proxy.ModifyResponse = r.observe
	r.srv = httptest.NewServer(proxy)
	t.Cleanup(r.srv.Close)
	return r
}

// URL is where the provider's api_url and sandbox_url should point.
func (r *e2bRecorder) URL() string { return r.srv.URL }

func (r *e2bRecorder) observe(resp *http.Response) error {
	req := resp.Request
	ev := recordedEvent{at: time.Now()}
	seg := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if len(seg) > 1 && seg[0] == "v2" { // /v2/sandboxes/{id}/connect is connect as v1's is
		seg = seg[1:]
	}
	switch {
	case req.Header.Get("E2b-Sandbox-Id") != "":
		ev.kind, ev.sandboxID = "envd", req.Header.Get("E2b-Sandbox-Id")
	case req.Method == http.MethodPost && (req.URL.Path == "/sandboxes" || req.URL.Path == "/v2/sandboxes") && resp.StatusCode == http.StatusCreated:
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var created createdSandbox
		if err := json.Unmarshal(body, &created); err != nil {
			return err
		}
		ev.kind, ev.sandboxID, ev.created = "create", created.SandboxID, created
	case len(seg) == 2 && seg[0] == "sandboxes" && req.Method == http.MethodDelete:
		ev.kind, ev.sandboxID = "kill", seg[1]
	case len(seg) == 3 && seg[0] == "sandboxes" && seg[2] == "timeout":
		ev.kind, ev.sandboxID = "timeout", seg[1]
	case len(seg) == 3 && seg[0] == "sandboxes" && seg[2] == "connect":
		ev.kind, ev.sandboxID = "connect", seg[1]
	default:
		return nil
	}
	if resp.StatusCode >= 300 {
		ev.kind += " failed"
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	return nil
}

// created lists the sandboxes created so far, in order.
func (r *e2bRecorder) created() []createdSandbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []createdSandbox
	for _, e := range r.events {
		if e.kind == "create" {
			out = append(out, e.created)
		}
	}
	return out
}

// count returns how many events of kind concern the sandbox.
func (r *e2bRecorder) count(kind, id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.kind == kind && e.sandboxID == id {
			n++
		}
	}
	return n
}

// lifeOf returns when the sandbox was created and killed (zero when it was not) and the times
// of the envd calls made to it.
func (r *e2bRecorder) lifeOf(id string) (created, killed time.Time, envd []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.sandboxID != id {
			continue
		}
		switch e.kind {
		case "create":
			created = e.at
		case "kill":
			killed = e.at
		case "envd":
			envd = append(envd, e.at)
		}
	}
	return created, killed, envd
}

// secrets are the strings of a sandbox that must never be persisted.
func (c createdSandbox) secrets() []string {
	var out []string
	for _, s := range []string{c.SandboxID, c.EnvdAccessToken, c.TrafficAccessToken} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkUsedAndKilled verifies that the sandbox was used through envd after its create and
// killed (by the provider, not expired) after the last use, and that the emulator no longer has it.
func (r *e2bRecorder) checkUsedAndKilled(emu *emulator.Server, id string) error {
	created, killed, envd := r.lifeOf(id)
	switch {
	case created.IsZero():
		return fmt.Errorf("sandbox %s was not created through the provider", id)
	case len(envd) == 0:
		return fmt.Errorf("sandbox %s was never used through envd", id)
	case killed.IsZero():
		return fmt.Errorf("sandbox %s was never killed", id)
	case killed.Before(envd[len(envd)-1]):
		return fmt.Errorf("sandbox %s was killed before its last use", id)
	}
	for _, alive := range emu.SandboxIDs() {
		if alive == id {
			return fmt.Errorf("sandbox %s is still alive", id)
		}
	}
	return nil
}

// checkNotPersisted fails when any of the strings appears in a file: state files as they are,
// saved plans (zip archives) entry by entry.
func checkNotPersisted(files []string, secrets []string) error {
	if len(files) == 0 {
		return fmt.Errorf("no files to check")
	}
	for _, f := range files {
		contents, err := fileContents(f)
		if err != nil {
			return err
		}
		for name, b := range contents {
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					return fmt.Errorf("%s (%s) contains %q", f, name, s)
				}
			}
		}
	}
	return nil
}

// fileContents returns a file's bytes, or each entry of a zip archive.
func fileContents(path string) (map[string][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return map[string][]byte{filepath.Base(path): b}, nil // Not a zip archive.
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			return nil, err
		}
		out[f.Name] = data
	}
	return out, nil
}

// testAccProviderBlockVia is the emulator's provider block with every URL pointing at the recorder.
func testAccProviderBlockVia(emu *emulator.Server, rec *e2bRecorder) string {
	return strings.NewReplacer(emu.APIURL(), rec.URL(), emu.SandboxURL(), rec.URL()).Replace(testAccProviderBlock(emu))
}
