package controlplane

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// hdrNextToken carries the token of a list's next page.
const hdrNextToken = "X-Next-Token"

// Control-plane route keys double as ServeMux patterns.
const (
	routeCreate   = "POST /sandboxes"
	routeCreateV2 = "POST /v2/sandboxes"
)

func (s *API) newControlMux() *http.ServeMux {
	m := http.NewServeMux()
	// E2B's spec marks v1 create, connect and fork deprecated for their /v2
	// routes. Either set can be switched off: without v1 the emulator is an
	// E2B that has retired it, without v2 an older self-hosted E2B; a route
	// switched off answers as a route E2B does not know (404).
	if !s.opts.SandboxRoutesV1Off {
		m.HandleFunc(routeCreate, s.handleCreate)
		m.HandleFunc("POST /sandboxes/{id}/connect", s.handleConnect)
		m.HandleFunc("POST /sandboxes/{id}/fork", s.handleFork)
	}
	if !s.opts.SandboxRoutesV2Off {
		m.HandleFunc(routeCreateV2, s.handleCreate)
		m.HandleFunc("POST /v2/sandboxes/{id}/connect", s.handleConnect)
		m.HandleFunc("POST /v2/sandboxes/{id}/fork", s.handleFork)
	}
	m.HandleFunc("GET /sandboxes", s.handleListV1)
	m.HandleFunc("GET /v2/sandboxes", s.handleListV2)
	m.HandleFunc("GET /sandboxes/{id}", s.handleGet)
	m.HandleFunc("DELETE /sandboxes/{id}", s.handleKill)
	m.HandleFunc("POST /sandboxes/{id}/timeout", s.handleSetTimeout)
	m.HandleFunc("POST /sandboxes/{id}/refreshes", s.handleRefresh)
	m.HandleFunc("POST /sandboxes/{id}/pause", s.handlePause)
	m.HandleFunc("POST /sandboxes/{id}/resume", s.handleResume)
	m.HandleFunc("PUT /sandboxes/{id}/network", s.handleNetwork)
	m.HandleFunc("POST /sandboxes/{id}/snapshots", s.handleCreateSnapshot)
	m.HandleFunc("GET /snapshots", s.handleListSnapshots)
	m.HandleFunc("GET /sandboxes/{id}/metrics", s.handleSandboxMetrics)
	m.HandleFunc("GET /sandboxes/metrics", s.handleManyMetrics)
	m.HandleFunc("GET /sandboxes/{id}/logs", s.handleLogsV1)
	m.HandleFunc("GET /v2/sandboxes/{id}/logs", s.handleLogsV2)
	m.HandleFunc("GET /v2/templates", s.handleListTemplates)
	m.HandleFunc("GET /templates", s.handleListTemplates)
	m.HandleFunc("GET /templates/{id}", s.handleGetTemplate)
	m.HandleFunc("DELETE /templates/{id}", s.handleDeleteTemplate)
	// "/templates/aliases/{alias}" and "/templates/{id}/tags" overlap for the
	// mux ("/templates/aliases/tags"), so one pattern serves both.
	m.HandleFunc("GET /templates/{id}/{sub}", s.handleTemplateSub)
	m.HandleFunc("POST /v3/templates", s.handleRequestBuild)
	// E2B's deprecated Dockerfile builds and team list (access token only).
	m.HandleFunc("POST /templates", s.handleLegacyRequestBuild)
	m.HandleFunc("POST /templates/{id}", s.handleLegacyRequestBuild)
	m.HandleFunc("POST /templates/{id}/builds/{buildID}", s.handleLegacyStartBuild)
	m.HandleFunc("GET /teams", s.handleTeams)
	m.HandleFunc("GET /templates/{id}/files/{hash}", s.handleFilesLink)
	m.HandleFunc("POST /v2/templates/{id}/builds/{buildID}", s.handleStartBuild)
	m.HandleFunc("GET /templates/{id}/builds/{buildID}/status", s.handleBuildStatus)
	m.HandleFunc("GET /templates/{id}/builds/{buildID}/logs", s.handleBuildLogs)
	m.HandleFunc("PATCH /v2/templates/{id}", s.handleUpdateTemplate)
	m.HandleFunc("PATCH /templates/{id}", s.handleUpdateTemplate)
	m.HandleFunc("POST /templates/tags", s.handleAssignTags)
	m.HandleFunc("DELETE /templates/tags", s.handleDeleteTags)
	m.HandleFunc("GET /volumes", s.handleListVolumes)
	m.HandleFunc("POST /volumes", s.handleCreateVolume)
	m.HandleFunc("GET /volumes/{id}", s.handleGetVolume)
	m.HandleFunc("DELETE /volumes/{id}", s.handleDeleteVolume)
	m.HandleFunc("GET /teams/{teamID}/metrics", s.handleTeamMetrics)
	m.HandleFunc("GET /teams/{teamID}/metrics/max", s.handleTeamMetricsMax)
	m.HandleFunc("GET /events/sandboxes", s.handleEvents)
	m.HandleFunc("GET /events/sandboxes/{id}", s.handleEvents)
	m.HandleFunc("GET /events/webhooks", s.handleListWebhooks)
	m.HandleFunc("POST /events/webhooks", s.handleCreateWebhook)
	m.HandleFunc("GET /events/webhooks/{id}", s.handleGetWebhook)
	m.HandleFunc("PATCH /events/webhooks/{id}", s.handleUpdateWebhook)
	m.HandleFunc("DELETE /events/webhooks/{id}", s.handleDeleteWebhook)
	m.HandleFunc("GET /events/webhooks/{id}/deliveries", s.handleWebhookDeliveries)
	m.HandleFunc("GET /events/webhooks/{id}/stats", s.handleWebhookStats)
	m.HandleFunc("GET /secrets", s.handleListSecrets)
	m.HandleFunc("POST /secrets", s.handleCreateSecret)
	m.HandleFunc("GET /secrets/{id}", s.handleGetSecret)
	m.HandleFunc("POST /secrets/{id}", s.handleUpdateSecret)
	m.HandleFunc("DELETE /secrets/{id}", s.handleDeleteSecret)
	return m
}

// SandboxIDPattern is what a sandbox ID in a path must look like.
var SandboxIDPattern = regexp.MustCompile(`^[a-z0-9]+$`)

// sandboxIDParam validates {id}; the legacy "<id>-<ClientID>" form is accepted.
func sandboxIDParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if i := strings.IndexByte(id, '-'); i >= 0 {
		id = id[:i]
	}
	if !SandboxIDPattern.MatchString(id) {
		writeError(w, http.StatusBadRequest, "Invalid sandbox ID")
		return "", false
	}
	return id, true
}

// sandboxRequest opens a handler of /sandboxes/{id}/...: the sandbox ID
// from the path, then the JSON body into req; an empty body is accepted
// when bodyOptional. On false the answer is written.
func sandboxRequest(w http.ResponseWriter, r *http.Request, req any, bodyOptional bool) (string, bool) {
	id, ok := sandboxIDParam(w, r)
	if !ok {
		return "", false
	}
	if err := httpjson.Decode(r, req); err != nil && (err != httpjson.ErrEmptyBody || !bodyOptional) {
		validationError(w, err.Error())
		return "", false
	}
	return id, true
}

// timedSandboxRequest is sandboxRequest for a body with a timeout (seconds,
// def when absent), checked as timeoutField checks it.
func (s *API) timedSandboxRequest(w http.ResponseWriter, r *http.Request, req any, timeout **int32, def time.Duration) (string, time.Duration, bool) {
	id, ok := sandboxRequest(w, r, req, true)
	if !ok {
		return "", 0, false
	}
	d, ok := s.timeoutField(w, *timeout, def)
	return id, d, ok
}

// RouteMissMessage is E2B's answer for a request that matches no operation
// of its spec: an unknown path (a wrong api_url), or a known path with
// another method.
func (s *API) RouteMissMessage(r *http.Request) string {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		other := r.Clone(r.Context())
		other.Method = m
		if _, pattern := s.controlMux.Handler(other); pattern != "" {
			return "validation error: method not allowed"
		}
	}
	return "validation error: no matching operation was found"
}

func notFoundSandbox(w http.ResponseWriter, id string) {
	writeErrorf(w, http.StatusNotFound, "Sandbox %q doesn't exist or you don't have access to it", id)
}

// sandbox returns the sandbox's record and machine, or writes the 404.
func (s *API) sandbox(w http.ResponseWriter, id string) (sandboxes.Record, *envd.Machine, bool) {
	rec, m, ok := s.sandboxes.Get(id)
	if !ok {
		notFoundSandbox(w, id)
	}
	return rec, m, ok
}

// maxLifetimeMessage is E2B's wording for a timeout above the team's limit.
func (s *API) maxLifetimeMessage() string {
	d := s.opts.MaxLifetime
	if d%time.Hour == 0 {
		return fmt.Sprintf("Timeout cannot be greater than %d hours", int(d/time.Hour))
	}
	return fmt.Sprintf("Timeout cannot be greater than %s", d)
}

// timeoutField reads an optional timeout in seconds (at least 0: the
// request validator checked): def when absent, 400 when above the maximum
// lifetime.
func (s *API) timeoutField(w http.ResponseWriter, t *int32, def time.Duration) (time.Duration, bool) {
	d := def
	if t != nil {
		d = time.Duration(*t) * time.Second
	}
	if d > s.opts.MaxLifetime {
		writeError(w, http.StatusBadRequest, s.maxLifetimeMessage())
		return 0, false
	}
	return d, true
}

// respondOrDrop writes v, or drops the connection after the effect when a
// DropAfterCreate fault chose this request.
func respondOrDrop(w http.ResponseWriter, r *http.Request, status int, v any) {
	if drop, _ := r.Context().Value(dropAfterKey{}).(bool); drop {
		httpjson.Drop(w)
		return
	}
	httpjson.Write(w, status, v)
}
