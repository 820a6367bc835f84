package controlplane

import (
	"context"
	"net/http"
)

// Who called: E2B authenticates a request either with a team's API key
// (X-API-Key) or, on the operations its spec opens to it, with a user's
// access token (Authorization: Bearer sk_e2b_...). The emulator's one user
// belongs to its one team, which is that user's default team.

type accessTokenKey struct{}

// ByAccessToken marks r as authenticated with the user's access token
// rather than with the team's API key.
func ByAccessToken(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), accessTokenKey{}, true))
}

// byAccessToken tells whether ByAccessToken marked r.
func byAccessToken(r *http.Request) bool {
	v, _ := r.Context().Value(accessTokenKey{}).(bool)
	return v
}

// callerTeam resolves the team a request acts for as E2B's GetTeam does
// (e2b-dev/infra packages/api/internal/handlers/auth.go): an API key acts
// for its own team whatever teamID says (the handler then compares them); an
// access token acts for the user's team teamID names, the default one
// without it, and a team the user is not in answers 403. On false the answer
// is written.
func callerTeam(w http.ResponseWriter, r *http.Request, teamID *string) bool {
	if byAccessToken(r) && teamID != nil && *teamID != TeamID {
		writeError(w, http.StatusForbidden, "You are not allowed to access this team")
		return false
	}
	return true
}

// teamParamMatches answers E2B's 400 when an operation's deprecated teamID
// names another team than the API key's (E2B's template lists). On false the
// answer is written.
func teamParamMatches(w http.ResponseWriter, r *http.Request, teamID *string) bool {
	if !callerTeam(w, r, teamID) {
		return false
	}
	if teamID != nil && *teamID != TeamID {
		writeError(w, http.StatusBadRequest, "Team ID param mismatch with the API key")
		return false
	}
	return true
}

// queryParam returns the named query parameter, nil when absent.
func queryParam(r *http.Request, name string) *string {
	if vals, ok := r.URL.Query()[name]; ok && len(vals) > 0 {
		return &vals[0]
	}
	return nil
}
