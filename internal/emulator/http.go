package emulator

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/volumeapi"
)

// Header names used by E2B's edge and SDKs.
const (
	hdrSandboxID   = "E2b-Sandbox-Id"
	hdrSandboxPort = "E2b-Sandbox-Port"
	hdrAPIKey      = "X-API-Key"
	hdrAccessToken = "X-Access-Token"
	hdrNextToken   = "X-Next-Token"
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
	case strings.HasPrefix(r.URL.Path, uploadPrefix):
		s.serveUpload(w, r)
	case isEnvdRequest(r):
		s.serveEnvd(w, r)
	default:
		s.serveControl(w, r)
	}
}

// serveEnvdOnly is the handler of the optional envd-only listener.
func (s *Server) serveEnvdOnly(w http.ResponseWriter, r *http.Request) {
	w, r = s.withIdleTimeout(w, r)
	defer s.recoverPanic(w, r)
	s.serveEnvd(w, r)
}

// isEnvdRequest tells envd traffic from control-plane traffic on the shared listener.
func isEnvdRequest(r *http.Request) bool {
	if r.Header.Get(hdrSandboxID) != "" {
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

// apiErrorJSON is E2B's control-plane error body.
type apiErrorJSON struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	httpjson.Write(w, status, apiErrorJSON{Code: status, Message: msg})
}

func writeErrorf(w http.ResponseWriter, status int, format string, args ...any) {
	writeError(w, status, fmt.Sprintf(format, args...))
}

// validationError words a 400 like E2B's OpenAPI request validator does.
func validationError(w http.ResponseWriter, detail string) {
	writeError(w, http.StatusBadRequest, "validation error: error in openapi3filter.RequestError: "+detail)
}

// dropConnection closes the client connection without any response.
func dropConnection(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler)
}

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
