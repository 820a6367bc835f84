package emulator

import (
	"crypto/subtle"
	"io"
	"net/http"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

// serveControl counts, injects faults, checks the API key and dispatches.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		s.count("GET /health")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "Health check successful")
		return
	}
	pattern := s.cp.Route(r)
	if pattern == "" {
		s.count("unknown")
		// E2B's request validator answers a request that matches no operation
		// before it checks the API key.
		writeError(w, http.StatusNotFound, s.cp.RouteMissMessage(r))
		return
	}
	s.count(pattern)
	d, ok := s.applyFaultDecision(w, r, pattern, controlplane.IsCreate(pattern))
	if !ok {
		return
	}
	if !s.checkAPIKey(w, r) {
		return
	}
	// E2B's server validates after the API key and before the rate limit.
	if s.validateRequests.Load() && !s.cp.ValidateRequest(w, r) {
		return
	}
	if !s.allowRate(w, controlplane.IsCreate(pattern)) {
		return
	}
	if d.lose != "" || d.hold > 0 {
		s.serveAfterEffect(w, r, d.lose, d.hold)
		return
	}
	if d.dropAfterOK {
		r = controlplane.DropAnswer(r)
	}
	if d.createDelay > 0 || d.gateway > 0 {
		s.serveSlowCreate(w, r, d.createDelay, d.gateway)
		return
	}
	s.cp.ServeHTTP(w, r)
}

func (s *Server) checkAPIKey(w http.ResponseWriter, r *http.Request) bool {
	key := r.Header.Get(hdrAPIKey)
	if key == "" {
		writeError(w, http.StatusUnauthorized, "authorization header is missing")
		return false
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.apiKey)) != 1 {
		writeError(w, http.StatusUnauthorized, "Invalid API key, please visit https://e2b.dev/docs/api-key for more information.")
		return false
	}
	return true
}
