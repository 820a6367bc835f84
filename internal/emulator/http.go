package emulator

import (
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/portproxy"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/volumeapi"
)

// Routing.
//
// One listener serves everything: requests that carry E2b-Sandbox-Id, or a
// sandbox's host name (<port>-<sandbox id>.<domain>), or whose path is /files,
// /files/compose, /envs, /metrics, /process.Process/* or
// /filesystem.Filesystem/*, go to the sandbox proxy (envd.go: envd on port
// 49983, any other port forwarded to the sandbox's server); /_emulator/* is
// the admin API; the rest is the control plane. Options.EnvdAddr adds a
// listener for the sandbox proxy only. Header-less /files requests (signed
// URLs) go to the secure sandbox whose access token validates the signature.
// Requests for unknown, paused or killed sandboxes get E2B's edge 502; a
// paused sandbox with autoResume is resumed by its first request that carries
// the token it wants (package controlplane, Traffic).
//
// Envd route keys are "envd METHOD /path" for REST
// ("envd POST /files") and "envd /process.Process/Start" for RPCs; requests
// to a sandbox's other ports count and fault as "sandbox port".
//
// Admin API (no API key, never faulted, not counted; a POST or PUT must be
// application/json, and with Options.AdminToken every request needs
// "Authorization: Bearer <token>"): PUT|GET|DELETE
// /_emulator/faults (Faults JSON; latency in nanoseconds or "250ms";
// loseAnswer with lostAs ["drop","gateway"] carries any control-plane
// request matching routes out in full and then cuts the connection or
// answers a gateway's 504, the lost answer of a request that took effect;
// answerDelay holds the answer of such a request, for interrupts),
// GET|DELETE /_emulator/counters, POST /_emulator/templates (TemplateSeed
// JSON), POST /_emulator/sandboxes/{id}/expire, PUT
// /_emulator/sandboxes/{id}/https-ports ({"httpsPorts":[...]}: a change no
// E2B API can make, for drift tests), PUT|GET|DELETE
// /_emulator/limits (Limits JSON) and GET /_emulator/limits/refused.

// Header names used by E2B's edge and SDKs.
const (
	hdrSandboxID = portproxy.HeaderSandboxID
	hdrAPIKey    = "X-API-Key"
)

// serveMain is the handler of the main listener: admin, envd or control plane.
func (s *Server) serveMain(w http.ResponseWriter, r *http.Request) {
	w, r = s.withIdleTimeout(w, r)
	defer s.recoverPanic(w, r)
	switch {
	case strings.HasPrefix(r.URL.Path, "/_emulator/"):
		s.serveAdmin(w, r)
	case strings.HasPrefix(r.URL.Path, "/volumecontent/"):
		s.serveVolumeContent(w, r)
	case strings.HasPrefix(r.URL.Path, controlplane.UploadPrefix):
		s.cp.ServeUpload(w, r)
	case isEnvdRequest(r):
		s.serveSandbox(w, r)
	default:
		s.serveControl(w, r)
	}
}

// serveEnvdOnly is the handler of the optional envd-only listener.
func (s *Server) serveEnvdOnly(w http.ResponseWriter, r *http.Request) {
	w, r = s.withIdleTimeout(w, r)
	defer s.recoverPanic(w, r)
	s.serveSandbox(w, r)
}

// isEnvdRequest tells envd traffic from control-plane traffic on the shared listener.
func isEnvdRequest(r *http.Request) bool {
	if _, ok := portproxy.TargetOf(r); ok || r.Header.Get(hdrSandboxID) != "" {
		return true
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/process.Process/"), strings.HasPrefix(p, "/filesystem.Filesystem/"):
		return true
	case p == "/files", p == "/files/compose", p == "/envs", p == "/metrics":
		return true
	}
	return false
}

func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared by identity as net/http does
		panic(v)
	}
	s.logf("emulator: panic serving %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
	writeError(w, http.StatusInternalServerError, "internal emulator error")
}

func writeError(w http.ResponseWriter, status int, msg string) { httpjson.Error(w, status, msg) }

// serveVolumeContent counts, faults and dispatches volume-content requests.
func (s *Server) serveVolumeContent(w http.ResponseWriter, r *http.Request) {
	_, pattern := s.volumeMux.Handler(r)
	if pattern == "" {
		s.count("unknown")
		volumeapi.Error(w, http.StatusNotFound, "%s %s is not a route of this emulator", r.Method, r.URL.Path)
		return
	}
	s.count(pattern)
	if ok, _ := s.applyFaults(w, r, pattern, false); !ok {
		return
	}
	s.volumeMux.ServeHTTP(w, r)
}
