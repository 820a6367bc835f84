package controlplane

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// connectSandboxJSON is ConnectSandbox (and ConnectSandboxV2): memory false resumes a paused
// sandbox from its files only, a cold boot.
type connectSandboxJSON struct {
	Timeout *int32 `json:"timeout"`
	Memory  *bool  `json:"memory"`
}

// errCodeMemoryOverrideDisabled is E2B's error_code for memory=false where the capability is off.
const errCodeMemoryOverrideDisabled = "sandbox_memory_override_disabled"

func (s *API) handleSetTimeout(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Timeout int32 `json:"timeout"` // required, at least 0: the request validator checked
	}
	id, ok := sandboxRequest(w, r, &req, false)
	if !ok {
		return
	}
	end, m, err := s.sandboxes.SetTimeout(id, time.Duration(req.Timeout)*time.Second, map[string]any{"set_timeout": req.Timeout})
	if err != nil {
		notFoundSandbox(w, id) // E2B answers 404 for a paused sandbox too
		return
	}
	m.AddLog("info", "Sandbox timeout updated", map[string]string{"endAt": end.Format(time.RFC3339)})
	w.WriteHeader(http.StatusNoContent)
}

func (s *API) handleRefresh(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Duration *int `json:"duration"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	d := 15
	if req.Duration != nil { // 0 to 3600: the request validator checked
		if *req.Duration > d {
			d = *req.Duration
		}
	}
	if err := s.sandboxes.Refresh(id, time.Duration(d)*time.Second); err != nil {
		notFoundSandbox(w, id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *API) handlePause(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Memory *bool `json:"memory"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	memory := req.Memory == nil || *req.Memory
	_, err := s.sandboxes.Pause(id, memory)
	switch {
	case errors.Is(err, sandboxes.ErrAlreadyPaused):
		writeErrorf(w, http.StatusConflict, "Error pausing sandbox - sandbox '%s' is already paused", id)
		return
	case err != nil:
		notFoundSandbox(w, id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleConnect serves /sandboxes/{id}/connect and /v2/...: 200 when running
// (TTL only extended), 201 when it resumed a paused sandbox.
func (s *API) handleConnect(w http.ResponseWriter, r *http.Request) {
	v2 := strings.HasPrefix(r.Pattern, "POST /v2/")
	var req connectSandboxJSON
	id, ok := sandboxRequest(w, r, &req, v2)
	if !ok {
		return
	}
	timeout, ok := s.timeoutField(w, req.Timeout, 0)
	if !ok {
		return
	}
	var given *time.Duration
	if req.Timeout != nil {
		given = &timeout
	}
	rec, _, resumed, err := s.sandboxes.Connect(id, given, DefaultTimeoutV2, req.Memory == nil || *req.Memory)
	if !s.lifecycleOK(w, id, err) {
		return
	}
	if !resumed {
		httpjson.Write(w, http.StatusOK, s.sandboxResponse(rec))
		return
	}
	httpjson.Write(w, http.StatusCreated, s.sandboxResponse(rec))
}

// handleResume is the deprecated POST /sandboxes/{id}/resume.
func (s *API) handleResume(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Timeout   *int32 `json:"timeout"`
		AutoPause *bool  `json:"autoPause"`
		Memory    *bool  `json:"memory"`
	}
	id, timeout, ok := s.timedSandboxRequest(w, r, &req, &req.Timeout, defaultTimeoutV1)
	if !ok {
		return
	}
	rec, _, err := s.sandboxes.Resume(id, timeout, req.AutoPause, req.Memory == nil || *req.Memory)
	if errors.Is(err, sandboxes.ErrAlreadyRunning) {
		writeErrorf(w, http.StatusConflict, "Sandbox %s is already running", id)
		return
	}
	if !s.lifecycleOK(w, id, err) {
		return
	}
	httpjson.Write(w, http.StatusCreated, s.sandboxResponse(rec))
}

// sandboxNetworkUpdateConfigJSON is SandboxNetworkUpdateConfig: it replaces the egress settings as a whole,
// so a field left out is cleared.
type sandboxNetworkUpdateConfigJSON struct {
	AllowOut            []string                 `json:"allowOut"`
	DenyOut             []string                 `json:"denyOut"`
	AllowInternetAccess *bool                    `json:"allow_internet_access"`
	Rules               map[string][]egress.Rule `json:"rules"`
	EgressProxy         *egress.Proxy            `json:"egressProxy"`
}

func (s *API) handleNetwork(w http.ResponseWriter, r *http.Request) {
	var req sandboxNetworkUpdateConfigJSON
	id, ok := sandboxRequest(w, r, &req, false)
	if !ok {
		return
	}
	deny := append([]string(nil), req.DenyOut...)
	if req.AllowInternetAccess != nil && !*req.AllowInternetAccess && !contains(deny, "0.0.0.0/0") {
		deny = append(deny, "0.0.0.0/0")
	}
	if msg := validateEgress(req.AllowOut, deny, req.Rules, req.EgressProxy); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	rules := egress.Normalize(req.Rules)
	err := s.sandboxes.UpdateNetwork(id, sandboxes.Egress{
		AllowOut: req.AllowOut, DenyOut: deny, Rules: rules, Proxy: req.EgressProxy, AllowInternet: req.AllowInternetAccess,
	}, map[string]any{"network": map[string]any{"allowOut": req.AllowOut, "denyOut": deny,
		"rules": egress.Domains(rules), "egressProxy": req.EgressProxy != nil}})
	var notRunning sandboxes.NotRunningError
	switch {
	case errors.As(err, &notRunning):
		writeErrorf(w, http.StatusConflict, "Sandbox '%s' cannot be updated while in '%s' state", id, notRunning.State)
		return
	case err != nil:
		notFoundSandbox(w, id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// lifecycleOK reports whether a connect or resume went ahead; if not, it
// writes the answer to what the registry refused (the sandbox is gone, the
// concurrency cap, or memory=false where the capability is off).
func (s *API) lifecycleOK(w http.ResponseWriter, id string, err error) bool {
	var limit sandboxes.LimitError
	switch {
	case err == nil:
		return true
	case errors.As(err, &limit):
		writeError(w, http.StatusTooManyRequests, limit.Message)
	case errors.Is(err, sandboxes.ErrDiskOnlyResumeOff):
		httpjson.CodedError(w, http.StatusBadRequest, errCodeMemoryOverrideDisabled,
			"Resuming without memory (memory: false) is not enabled for this team; a plain resume still restores memory")
	default:
		notFoundSandbox(w, id)
	}
	return false
}
