package emulator

import (
	"crypto/subtle"
	"io"
	"net/http"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

// serveControl counts, injects faults, checks the credentials and dispatches.
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
	r, ok = s.authenticate(w, r)
	if !ok {
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

// E2B's words for the access token: its prefix, and its authenticator's
// message for one it does not know (the detail E2B adds on the next line is
// left out, as it is for the API key).
const (
	accessTokenPrefix  = "sk_e2b_"
	invalidAccessToken = "Invalid Access token, try to login again by running `e2b auth login`."
	authHeaderMissing  = "authorization header is missing"
)

// authenticate checks r's credentials against the schemes its operation
// takes, as E2B's spec lists them (controlplane.AuthSchemes). Where the API
// key alone is taken, checkAPIKey decides. Elsewhere each scheme is tried in
// the spec's order and the first that passes wins; a request none passes
// gets 401 with the first failure of a scheme whose header was sent (E2B's
// MultiErrorHandler), else "authorization header is missing". A request the
// access token passes is marked so for the handlers.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	schemes := s.cp.AuthSchemes(r)
	if len(schemes) == 1 && schemes[0] == controlplane.SchemeAPIKey {
		return r, s.checkAPIKey(w, r)
	}
	failure := ""
	for _, scheme := range schemes {
		var msg string
		switch scheme {
		case controlplane.SchemeAPIKey:
			msg = s.apiKeyFailure(r)
		case controlplane.SchemeAccessToken:
			msg = s.accessTokenFailure(r)
		}
		switch {
		case msg == "" && scheme == controlplane.SchemeAccessToken:
			return controlplane.ByAccessToken(r), true
		case msg == "":
			return r, true
		case failure == "" && msg != authHeaderMissing:
			failure = msg
		}
	}
	if failure == "" {
		failure = authHeaderMissing
	}
	writeError(w, http.StatusUnauthorized, failure)
	return r, false
}

// accessTokenFailure says why r's Authorization header does not carry the
// access token ("" when it does), in E2B's words.
func (s *Server) accessTokenFailure(r *http.Request) string {
	v := r.Header.Get("Authorization")
	if v == "" {
		return authHeaderMissing
	}
	token := strings.TrimSpace(strings.TrimPrefix(v, "Bearer "))
	if !strings.HasPrefix(token, accessTokenPrefix) {
		return "authorization header is malformed"
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.accessToken)) != 1 {
		return invalidAccessToken
	}
	return ""
}

// apiKeyFailure says why r's X-API-Key is not the key ("" when it is).
func (s *Server) apiKeyFailure(r *http.Request) string {
	key := r.Header.Get(hdrAPIKey)
	switch {
	case key == "":
		return authHeaderMissing
	case subtle.ConstantTimeCompare([]byte(key), []byte(s.apiKey)) != 1:
		return invalidAPIKey
	}
	return ""
}

func (s *Server) checkAPIKey(w http.ResponseWriter, r *http.Request) bool {
	if msg := s.apiKeyFailure(r); msg != "" {
		writeError(w, http.StatusUnauthorized, msg)
		return false
	}
	return true
}

// invalidAPIKey is E2B's message for an API key it does not know.
const invalidAPIKey = "Invalid API key, please visit https://e2b.dev/docs/api-key for more information."
