package emulator

import (
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/netrules"
)

type timeoutJSON struct {
	Timeout *int32 `json:"timeout"`
}

func (s *Server) handleSetTimeout(w http.ResponseWriter, r *http.Request) {
	var req timeoutJSON
	id, ok := sandboxRequest(w, r, &req, false)
	if !ok {
		return
	}
	if req.Timeout == nil {
		validationError(w, timeoutMissing)
		return
	}
	if *req.Timeout < 0 {
		validationError(w, timeoutNegative)
		return
	}
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	defer s.mu.Unlock()
	if sb.state != stateRunning {
		notFoundSandbox(w, id)
		return
	}
	end := time.Now().UTC().Add(time.Duration(*req.Timeout) * time.Second)
	if limit := sb.startedAt.Add(s.opts.MaxLifetime); end.After(limit) {
		end = limit // E2B caps silently at the team's maximum length
	}
	sb.endAt = end
	s.armTimerLocked(sb)
	s.recordEventLocked(sb, evUpdated, map[string]any{"set_timeout": *req.Timeout})
	go sb.AddLog("info", "Sandbox timeout updated", map[string]string{"endAt": end.Format(time.RFC3339)})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleRefresh(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Duration *int `json:"duration"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	d := 15
	if req.Duration != nil {
		if *req.Duration < 0 || *req.Duration > 3600 {
			validationError(w, `request body has an error: doesn't match schema: Error at "/duration": number must be between 0 and 3600`)
			return
		}
		if *req.Duration > d {
			d = *req.Duration
		}
	}
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	defer s.mu.Unlock()
	if sb.state != stateRunning {
		notFoundSandbox(w, id)
		return
	}
	s.extendLocked(sb, time.Duration(d)*time.Second)
	w.WriteHeader(http.StatusNoContent)
}

// extendLocked moves endAt to now+d, capped at the maximum lifetime, when
// that is later than the current endAt. Caller holds s.mu.
func (s *Server) extendLocked(sb *sandbox, d time.Duration) {
	end := time.Now().UTC().Add(d)
	if limit := sb.startedAt.Add(s.opts.MaxLifetime); end.After(limit) {
		end = limit
	}
	if end.After(sb.endAt) {
		sb.endAt = end
		s.armTimerLocked(sb)
	}
}

func (s *Server) handlePause(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Memory *bool `json:"memory"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	memory := req.Memory == nil || *req.Memory
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	if sb.state == statePaused {
		s.mu.Unlock()
		writeErrorf(w, http.StatusConflict, "Error pausing sandbox - sandbox '%s' is already paused", id)
		return
	}
	s.pauseLocked(sb, memory)
	s.mu.Unlock()
	sb.AddLog("info", "Sandbox paused", nil)
	w.WriteHeader(http.StatusNoContent)
}

// handleConnect serves /sandboxes/{id}/connect and /v2/...: 200 when running
// (TTL only extended), 201 when it resumed a paused sandbox.
func (s *Server) handleConnect(w http.ResponseWriter, r *http.Request) {
	v2 := strings.HasPrefix(r.Pattern, "POST /v2/")
	var req timeoutJSON
	id, ok := sandboxRequest(w, r, &req, v2)
	if !ok {
		return
	}
	if req.Timeout == nil && !v2 {
		validationError(w, timeoutMissing)
		return
	}
	timeout, ok := s.timeoutField(w, req.Timeout, 0)
	if !ok {
		return
	}
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	if sb.state == stateRunning {
		if req.Timeout != nil {
			s.extendLocked(sb, timeout)
		}
		resp := s.sandboxResponseLocked(sb)
		s.mu.Unlock()
		httpjson.Write(w, http.StatusOK, resp)
		return
	}
	if req.Timeout == nil {
		timeout = defaultTimeoutV2
	}
	if msg := s.sandboxLimitLocked(); msg != "" {
		s.mu.Unlock()
		writeError(w, http.StatusTooManyRequests, msg)
		return
	}
	s.resumeLocked(sb, timeout)
	resp := s.sandboxResponseLocked(sb)
	s.mu.Unlock()
	sb.AddLog("info", "Sandbox resumed", nil)
	httpjson.Write(w, http.StatusCreated, resp)
}

// handleResume is the deprecated POST /sandboxes/{id}/resume.
func (s *Server) handleResume(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Timeout   *int32 `json:"timeout"`
		AutoPause *bool  `json:"autoPause"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	timeout, ok := s.timeoutField(w, req.Timeout, defaultTimeoutV1)
	if !ok {
		return
	}
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	if sb.state == stateRunning {
		s.mu.Unlock()
		writeErrorf(w, http.StatusConflict, "Sandbox %s is already running", id)
		return
	}
	if msg := s.sandboxLimitLocked(); msg != "" {
		s.mu.Unlock()
		writeError(w, http.StatusTooManyRequests, msg)
		return
	}
	if req.AutoPause != nil {
		sb.autoPause = *req.AutoPause
	}
	s.resumeLocked(sb, timeout)
	resp := s.sandboxResponseLocked(sb)
	s.mu.Unlock()
	sb.AddLog("info", "Sandbox resumed", nil)
	httpjson.Write(w, http.StatusCreated, resp)
}

// networkUpdateJSON is SandboxNetworkUpdateConfig: it replaces the egress settings as a whole,
// so a field left out is cleared.
type networkUpdateJSON struct {
	AllowOut            []string                   `json:"allowOut"`
	DenyOut             []string                   `json:"denyOut"`
	AllowInternetAccess *bool                      `json:"allow_internet_access"`
	Rules               map[string][]netrules.Rule `json:"rules"`
	EgressProxy         *netrules.Proxy            `json:"egressProxy"`
}

func (s *Server) handleNetwork(w http.ResponseWriter, r *http.Request) {
	var req networkUpdateJSON
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
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	defer s.mu.Unlock()
	if sb.state != stateRunning {
		writeErrorf(w, http.StatusConflict, "Sandbox '%s' cannot be updated while in '%s' state", id, sb.state)
		return
	}
	sb.network.AllowOut = req.AllowOut
	sb.network.DenyOut = deny
	sb.network.Rules = netrules.Normalize(req.Rules)
	sb.network.EgressProxy = req.EgressProxy
	sb.allowInternet = req.AllowInternetAccess
	s.recordEventLocked(sb, evUpdated, map[string]any{"network": map[string]any{"allowOut": req.AllowOut, "denyOut": deny,
		"rules": netrules.Domains(sb.network.Rules), "egressProxy": sb.network.EgressProxy != nil}})
	w.WriteHeader(http.StatusNoContent)
}
