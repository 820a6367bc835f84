package controlplane

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The schemes the emulator authenticates: E2B's team API key and its
// deprecated user access token. (The dashboard's and admins' schemes are
// not modelled: a request carrying only those is one without credentials.)
const (
	SchemeAPIKey      = "ApiKeyAuth"
	SchemeAccessToken = "AccessTokenAuth"
)

// AuthSchemes lists, in the order E2B's spec tries them, the schemes that
// may authenticate r: the access token only where E2B's spec lists
// AccessTokenAuth for the operation (the SDK-side spec, as the API server
// at e2b-dev/infra 54693ff serves it: the newest spec dropped the scheme),
// the API key everywhere else, as the newest spec has it.
func (s *API) AuthSchemes(r *http.Request) []string {
	legacy, _, err := s.validator.legacy.FindRoute(r)
	if err != nil || !lists(legacy.Operation.Security, SchemeAccessToken) {
		return []string{SchemeAPIKey}
	}
	// The same operation in both specs: a path the legacy spec reads as a
	// parameter (DELETE /templates/{templateID}) may be another operation
	// of the newest (DELETE /templates/tags).
	if newest, _, err := s.validator.router.FindRoute(r); err == nil && newest.Path != legacy.Path {
		return []string{SchemeAPIKey}
	}
	var out []string
	for _, req := range *legacy.Operation.Security {
		for _, name := range []string{SchemeAPIKey, SchemeAccessToken} {
			if _, ok := req[name]; ok && len(req) == 1 {
				out = append(out, name)
			}
		}
	}
	return out
}

// lists reports whether a security requirement consists of scheme alone.
func lists(sec *openapi3.SecurityRequirements, scheme string) bool {
	if sec == nil {
		return false
	}
	for _, req := range *sec {
		if _, ok := req[scheme]; ok && len(req) == 1 {
			return true
		}
	}
	return false
}
