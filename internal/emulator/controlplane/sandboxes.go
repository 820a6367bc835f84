package controlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

const (
	defaultTimeoutV1 = 15 * time.Second  // E2B's server default for POST /sandboxes
	DefaultTimeoutV2 = 300 * time.Second // default of the /v2 create and connect routes (SDK 2.51 omits timeout)
)

type sandboxNetworkConfigJSON struct {
	AllowPublicTraffic *bool                    `json:"allowPublicTraffic"`
	AllowOut           []string                 `json:"allowOut"`
	DenyOut            []string                 `json:"denyOut"`
	MaskRequestHost    string                   `json:"maskRequestHost"`
	Rules              map[string][]egress.Rule `json:"rules"`
	EgressProxy        *egress.Proxy            `json:"egressProxy"`
	HTTPSPorts         []uint32                 `json:"httpsPorts"`
}

type newSandboxJSON struct {
	TemplateID          *string                   `json:"templateID"`
	Timeout             *int32                    `json:"timeout"`
	AutoPause           *bool                     `json:"autoPause"`
	AutoPauseMemory     *bool                     `json:"autoPauseMemory"`
	AutoResume          *struct{ Enabled *bool }  `json:"autoResume"`
	Secure              *bool                     `json:"secure"`
	AllowInternetAccess *bool                     `json:"allow_internet_access"`
	Network             *sandboxNetworkConfigJSON `json:"network"`
	Metadata            map[string]string         `json:"metadata"`
	EnvVars             map[string]string         `json:"envVars"`
	VolumeMounts        []sandboxVolumeMountJSON  `json:"volumeMounts"`
	MCP                 json.RawMessage           `json:"mcp"`
	IAM                 *sandboxIamJSON           `json:"iam"`
}

// checkMCPAndIAM validates the two options the emulator accepts and keeps
// without acting on them (see the package doc).
func checkMCPAndIAM(req *newSandboxJSON) string {
	if m := strings.TrimSpace(string(req.MCP)); m != "" && m != "null" && !strings.HasPrefix(m, "{") {
		return `request body has an error: doesn't match schema: Error at "/mcp": value must be an object`
	}
	if req.IAM != nil {
		for name, t := range req.IAM.Tokens {
			if t.Audience == nil || t.TokenType == nil {
				return fmt.Sprintf(`request body has an error: doesn't match schema: Error at "/iam/tokens/%s": properties "audience" and "tokenType" are required`, name)
			}
		}
	}
	return ""
}

// SandboxJSON is E2B's Sandbox schema (create, connect, resume, fork).
type SandboxJSON struct {
	TemplateID         string  `json:"templateID"`
	SandboxID          string  `json:"sandboxID"`
	Alias              string  `json:"alias,omitempty"`
	ClientID           string  `json:"clientID"`
	EnvdVersion        string  `json:"envdVersion"`
	EnvdAccessToken    string  `json:"envdAccessToken,omitempty"`
	TrafficAccessToken *string `json:"trafficAccessToken"`
	Domain             *string `json:"domain"`
}

type sandboxLifecycleJSON struct {
	AutoResume bool   `json:"autoResume"`
	OnTimeout  string `json:"onTimeout"`
}

// SandboxDetailJSON is E2B's SandboxDetail schema: a ListedSandbox's fields (the same required
// set) and the settings only a read of one sandbox shows.
type SandboxDetailJSON struct {
	ListedSandboxJSON
	EnvdAccessToken     string               `json:"envdAccessToken,omitempty"`
	AllowInternetAccess *bool                `json:"allowInternetAccess"`
	Domain              *string              `json:"domain"`
	Network             *sandboxes.Network   `json:"network,omitempty"`
	Lifecycle           sandboxLifecycleJSON `json:"lifecycle"`
}

// ListedSandboxJSON is E2B's ListedSandbox schema.
type ListedSandboxJSON struct {
	TemplateID   string                   `json:"templateID"`
	Alias        string                   `json:"alias,omitempty"`
	SandboxID    string                   `json:"sandboxID"`
	ClientID     string                   `json:"clientID"`
	StartedAt    time.Time                `json:"startedAt"`
	EndAt        time.Time                `json:"endAt"`
	CPUCount     int32                    `json:"cpuCount"`
	MemoryMB     int32                    `json:"memoryMB"`
	DiskSizeMB   int32                    `json:"diskSizeMB"`
	Metadata     map[string]string        `json:"metadata"`
	State        string                   `json:"state"`
	EnvdVersion  string                   `json:"envdVersion"`
	VolumeMounts []sandboxVolumeMountJSON `json:"volumeMounts"`
}

func (s *API) sandboxResponse(rec sandboxes.Record) SandboxJSON {
	resp := SandboxJSON{
		TemplateID: rec.Template.ID, SandboxID: rec.ID, Alias: rec.Template.Alias(),
		ClientID: ClientID, EnvdVersion: EnvdVersion,
	}
	if rec.Secure {
		resp.EnvdAccessToken = s.accessToken(rec.ID)
	}
	if rec.Network.AllowPublicTraffic != nil && !*rec.Network.AllowPublicTraffic {
		t := s.trafficToken(rec.ID)
		resp.TrafficAccessToken = &t
	}
	return resp
}

func (s *API) sandboxDetail(rec sandboxes.Record) SandboxDetailJSON {
	d := SandboxDetailJSON{
		ListedSandboxJSON:   s.listed(rec),
		AllowInternetAccess: rec.AllowInternet,
		Lifecycle:           sandboxLifecycleJSON{AutoResume: rec.AutoResume, OnTimeout: rec.OnTimeout()},
	}
	if rec.Secure {
		d.EnvdAccessToken = s.accessToken(rec.ID)
	}
	if n := rec.Network.Shown(); !n.Empty() {
		d.Network = &n
	}
	return d
}

func (s *API) listed(rec sandboxes.Record) ListedSandboxJSON {
	tm := s.templateOf(rec)
	return ListedSandboxJSON{
		TemplateID: rec.Template.ID, Alias: rec.Template.Alias(), SandboxID: rec.ID, ClientID: ClientID,
		StartedAt: rec.StartedAt, EndAt: rec.EndAt,
		CPUCount: tm.CPUCount, MemoryMB: tm.MemoryMB, DiskSizeMB: tm.DiskSizeMB,
		Metadata: rec.Metadata, State: rec.State, EnvdVersion: EnvdVersion,
		VolumeMounts: mountsJSON(rec.Mounts),
	}
}

// validateEgress checks the egress settings the way E2B does. E2B also refuses a proxy address
// in a private or internal range; the emulator accepts one, so tests can run a proxy locally.
func validateEgress(allowOut, denyOut []string, rules map[string][]egress.Rule, proxy *egress.Proxy) string {
	if msg := validateNetwork(allowOut, denyOut); msg != "" {
		return msg
	}
	if msg := egress.Validate(rules); msg != "" {
		return msg
	}
	return egress.ValidateProxy(proxy)
}

// envdPort is the port envd serves in every sandbox; E2B's proxy always reaches it in plain HTTP.
const envdPort = 49983

// validateHTTPSPorts is what E2B's create handler checks of network.httpsPorts beyond the
// schema (range, count and uniqueness are the request validator's): the envd port cannot be one.
func validateHTTPSPorts(ports []uint32) string {
	for _, p := range ports {
		if p == envdPort {
			return fmt.Sprintf("HTTPS backend routing is not supported for reserved port %d", p)
		}
	}
	return ""
}

// validateNetwork checks allowOut/denyOut the way E2B does.
func validateNetwork(allowOut, denyOut []string) string {
	denyAll := false
	for _, d := range denyOut {
		if !isIPOrCIDR(d) {
			return "invalid denyOut entry '" + d + "': only IP addresses and CIDR blocks are supported"
		}
		if d == "0.0.0.0/0" {
			denyAll = true
		}
	}
	for _, a := range allowOut {
		if a == "" {
			return "invalid allowOut entry: empty value"
		}
		if !isIPOrCIDR(a) && !denyAll {
			return "allowOut domain '" + a + "' requires denyOut to contain 0.0.0.0/0"
		}
	}
	return ""
}

func isIPOrCIDR(v string) bool {
	if net.ParseIP(v) != nil {
		return true
	}
	_, _, err := net.ParseCIDR(v)
	return err == nil
}

func (s *API) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req newSandboxJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if req.TemplateID == nil || strings.TrimSpace(*req.TemplateID) == "" {
		missingProperty(w, "templateID")
		return
	}
	def := defaultTimeoutV1
	if r.Pattern == routeCreateV2 {
		def = DefaultTimeoutV2
	}
	timeout, ok := s.timeoutField(w, req.Timeout, def)
	if !ok {
		return
	}
	if timeout == 0 { // only an explicit 0: the defaults are positive
		writeError(w, http.StatusBadRequest, "Timeout must be greater than 0")
		return
	}
	if msg := sandboxos.CheckEnv(req.EnvVars); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if msg := checkMCPAndIAM(&req); msg != "" {
		validationError(w, msg)
		return
	}
	autoPause := req.AutoPause != nil && *req.AutoPause
	autoResume := req.AutoResume != nil && req.AutoResume.Enabled != nil && *req.AutoResume.Enabled
	if req.AutoPauseMemory != nil {
		if !autoPause {
			writeError(w, http.StatusBadRequest, "autoPauseMemory can only be set when autoPause is true")
			return
		}
		if !*req.AutoPauseMemory && autoResume {
			writeError(w, http.StatusBadRequest, "autoPauseMemory=false cannot be combined with autoResume")
			return
		}
	}
	// NewSandboxV2 has no "secure": E2B always secures a v2 sandbox, and
	// ignores the field as it ignores any other it does not know.
	secure := r.Pattern == routeCreateV2
	if req.Secure != nil && !secure {
		secure = *req.Secure
	}
	var netCfg sandboxes.Network
	if n := req.Network; n != nil {
		if msg := validateMaskRequestHost(n.MaskRequestHost); msg != "" {
			writeError(w, http.StatusBadRequest, msg)
			return
		}
		if n.AllowPublicTraffic != nil && !*n.AllowPublicTraffic && !secure {
			writeError(w, http.StatusBadRequest, errPublicTrafficNeedsSecure)
			return
		}
		if msg := validateEgress(n.AllowOut, n.DenyOut, n.Rules, n.EgressProxy); msg != "" {
			writeError(w, http.StatusBadRequest, msg)
			return
		}
		if msg := validateHTTPSPorts(n.HTTPSPorts); msg != "" {
			writeError(w, http.StatusBadRequest, msg)
			return
		}
		netCfg = sandboxes.Network{AllowOut: n.AllowOut, DenyOut: n.DenyOut, AllowPublicTraffic: n.AllowPublicTraffic,
			MaskRequestHost: n.MaskRequestHost, Rules: egress.Normalize(n.Rules), EgressProxy: n.EgressProxy,
			HTTPSPorts: n.HTTPSPorts}
	}
	if req.AllowInternetAccess != nil && !*req.AllowInternetAccess && !contains(netCfg.DenyOut, "0.0.0.0/0") {
		netCfg.DenyOut = append(netCfg.DenyOut, "0.0.0.0/0")
	}

	waitCreateDelay(r)
	rec, m, err := s.sandboxes.Create(func(id string, running int) (sandboxes.Record, *envd.Machine, error) {
		t, build, found := s.opts.Store.ResolveBuild(*req.TemplateID)
		if !found {
			return sandboxes.Record{}, nil, refuse(http.StatusNotFound, "template '%s' not found", *req.TemplateID)
		}
		mounts, msg := s.resolveMounts(req.VolumeMounts)
		if msg != "" {
			return sandboxes.Record{}, nil, refuse(http.StatusBadRequest, "%s", msg)
		}
		if msg := s.opts.Admit(running); msg != "" {
			return sandboxes.Record{}, nil, refuse(http.StatusTooManyRequests, "%s", msg)
		}
		envVars := copyMap(build.Config.Envs)
		for k, v := range req.EnvVars {
			envVars[k] = v
		}
		m, err := s.startMachine(id, t, build, mounts, envVars, secure)
		if err != nil {
			return sandboxes.Record{}, nil, refuse(http.StatusInternalServerError, "error creating sandbox: %v", err)
		}
		now := time.Now().UTC()
		s.opts.Store.CountSpawn(t.ID, now)
		return sandboxes.Record{
			Template: t, Build: build, TemplateRef: *req.TemplateID,
			StartedAt: now, EndAt: now.Add(timeout), ResumeTimeout: autoResumeTimeout(timeout),
			AutoPause: autoPause, AutoResume: autoResume, Secure: secure,
			AutoPauseKeeps: req.AutoPauseMemory == nil || *req.AutoPauseMemory,
			AllowInternet:  req.AllowInternetAccess, Network: netCfg,
			Metadata: copyMap(req.Metadata), EnvVars: envVars, Mounts: mounts,
			MCP: req.MCP, IAMAudiences: req.IAM.audiences(),
		}, m, nil
	}, nil)
	var refused apiError
	switch {
	case errors.As(err, &refused):
		writeError(w, refused.status, refused.msg)
		return
	case err != nil: // the registry is closed
		writeError(w, http.StatusServiceUnavailable, "emulator is shutting down")
		return
	}
	m.AddLog("info", "Sandbox created", map[string]string{"templateID": rec.Template.ID})
	m.TakeSampleFrom(nil) // no processes yet: the first sample needs no /proc scan
	s.runStartCommand(m, rec.Build.Config)
	respondOrDrop(w, r, http.StatusCreated, s.sandboxResponse(rec))
}

// copyMap copies m; nil gives an empty map, as E2B's answers carry {}.
func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (s *API) handleGet(w http.ResponseWriter, r *http.Request) {
	id, ok := sandboxIDParam(w, r)
	if !ok {
		return
	}
	rec, _, ok := s.sandbox(w, id)
	if !ok {
		return
	}
	httpjson.Write(w, http.StatusOK, s.sandboxDetail(rec))
}

func (s *API) handleKill(w http.ResponseWriter, r *http.Request) {
	id, ok := sandboxIDParam(w, r)
	if !ok {
		return
	}
	m, err := s.sandboxes.Kill(id)
	if err != nil {
		notFoundSandbox(w, id)
		return
	}
	m.AddLog("info", "Sandbox killed", nil)
	m.Destroy()
	w.WriteHeader(http.StatusNoContent)
}
