package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/netrules"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

const (
	stateRunning = "running"
	statePaused  = "paused"
)

// networkConfig is what the sandbox stores of SandboxNetworkConfig.
type networkConfig struct {
	AllowOut           []string                   `json:"allowOut,omitempty"`
	DenyOut            []string                   `json:"denyOut,omitempty"`
	AllowPublicTraffic *bool                      `json:"allowPublicTraffic,omitempty"`
	MaskRequestHost    string                     `json:"maskRequestHost,omitempty"`
	Rules              map[string][]netrules.Rule `json:"rules,omitempty"`
	EgressProxy        *netrules.Proxy            `json:"egressProxy,omitempty"`
}

// shown is the configuration as E2B's API returns it: never the proxy's password.
func (n networkConfig) shown() networkConfig {
	if n.EgressProxy != nil {
		p := *n.EgressProxy
		p.Password = ""
		n.EgressProxy = &p
	}
	return n
}

// empty reports whether nothing was configured.
func (n networkConfig) empty() bool {
	return len(n.AllowOut) == 0 && len(n.DenyOut) == 0 && n.AllowPublicTraffic == nil && n.MaskRequestHost == "" &&
		len(n.Rules) == 0 && n.EgressProxy == nil
}

// iamJSON is SandboxIam: named workload-token definitions.
type iamJSON struct {
	Tokens map[string]struct {
		Audience  *string `json:"audience"`
		TokenType *string `json:"tokenType"`
	} `json:"tokens"`
}

// sandbox is one emulated sandbox: what E2B's control plane keeps of it,
// guarded by Server.mu, over the machine its envd serves.
type sandbox struct {
	*envd.Machine
	id             string
	tmpl           state.Template // as it was when the sandbox started
	build          state.Build    // the build the sandbox started from
	templateRef    string
	state          string
	startedAt      time.Time
	endAt          time.Time
	resumeTimeout  time.Duration
	autoPause      bool
	autoPauseKeeps bool // autoPauseMemory: an auto-pause keeps processes (memory snapshot)
	autoResume     bool
	secure         bool
	allowInternet  *bool
	network        networkConfig
	metadata       map[string]string
	envVars        map[string]string
	mounts         []envd.VolumeMount // fixed at create
	executionID    string             // new at create and at every resume
	mcp            json.RawMessage
	iam            *iamJSON
	timer          *time.Timer
	timerGen       int
	pausedByMemory bool
}

func (s *Server) accessToken(id string) string {
	m := hmac.New(sha256.New, s.seed)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// egressToken is the password a sandbox's processes give the egress proxy.
func (s *Server) egressToken(id string) string {
	m := hmac.New(sha256.New, s.seed)
	m.Write([]byte("sandbox-egress-" + id))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) trafficToken(id string) string {
	m := hmac.New(sha256.New, s.seed)
	m.Write([]byte("sandbox-traffic-" + id))
	return hex.EncodeToString(m.Sum(nil))
}

// newSandboxLocked starts a sandbox from the build with a new ID; the caller
// fills in the record. Caller holds s.mu.
func (s *Server) newSandboxLocked(t state.Template, b state.Build, ref string, mounts []envd.VolumeMount,
	envVars map[string]string, secure bool) (*sandbox, error) {
	id := ids.New("i", 20)
	for s.sandboxes[id] != nil {
		id = ids.New("i", 20)
	}
	m, err := s.startMachine(id, t, b, mounts, envVars, secure)
	if err != nil {
		return nil, err
	}
	return &sandbox{
		Machine: m, id: id, tmpl: t, build: b, templateRef: ref, state: stateRunning,
		secure: secure, metadata: map[string]string{}, envVars: copyMap(envVars), mounts: mounts,
	}, nil
}

// startMachine starts a sandbox's machine from the build: a private root over
// its layers, or a copy of its files, with its volumes mounted before it boots.
func (s *Server) startMachine(id string, t state.Template, b state.Build, mounts []envd.VolumeMount,
	envVars map[string]string, secure bool) (*envd.Machine, error) {
	cfg := envd.Config{
		ID: id, TemplateID: t.ID, TeamID: teamID, Dir: filepath.Join(s.dataDir, "sandboxes", id),
		FilesDir: b.FilesDir, Workdir: b.Config.Workdir, EnvVars: envVars, Mounts: mounts,
	}
	if secure {
		cfg.AccessToken = s.accessToken(id)
	}
	if s.rootfs != nil {
		root, err := s.mountRoot(b, cfg.Dir)
		if err != nil {
			sandboxos.RemoveTree(cfg.Dir)
			return nil, err
		}
		cfg.Root, cfg.FilesDir = root, ""
	}
	return envd.Start(s.machineHost, cfg)
}

// templateOf is the sandbox's template as it is now (its
// resources follow the template's), or as it was if it is gone.
func (s *Server) templateOf(sb *sandbox) state.Template {
	if t, ok := s.store.Template(sb.tmpl.ID); ok {
		return t
	}
	return sb.tmpl
}

// armTimerLocked (re)starts the TTL timer for endAt. Caller holds s.mu.
func (s *Server) armTimerLocked(sb *sandbox) {
	if sb.timer != nil {
		sb.timer.Stop()
	}
	sb.timerGen++
	gen := sb.timerGen
	d := time.Until(sb.endAt)
	if d < 0 {
		d = 0
	}
	sb.timer = time.AfterFunc(d, func() { s.onTimer(sb, gen) })
}

func (s *Server) onTimer(sb *sandbox, gen int) {
	s.mu.Lock()
	if s.sandboxes[sb.id] != sb || sb.timerGen != gen || sb.state != stateRunning {
		s.mu.Unlock()
		return
	}
	if d := time.Until(sb.endAt); d > 0 { // endAt moved later meanwhile
		sb.timer = time.AfterFunc(d, func() { s.onTimer(sb, gen) })
		s.mu.Unlock()
		return
	}
	s.expireLocked(sb)
}

// expireLocked ends the sandbox's TTL now: pause with autoPause, else kill.
// It releases s.mu.
func (s *Server) expireLocked(sb *sandbox) {
	if sb.autoPause {
		s.pauseLocked(sb, sb.autoPauseKeeps)
		s.mu.Unlock()
		sb.AddLog("info", "Sandbox paused after timeout", nil)
		return
	}
	s.removeLocked(sb)
	s.mu.Unlock()
	sb.AddLog("info", "Sandbox killed after timeout", nil)
	sb.Destroy()
}

// Expire runs the TTL end of a sandbox now (kill, or pause with autoPause).
func (s *Server) Expire(sandboxID string) error {
	s.mu.Lock()
	sb := s.sandboxes[sandboxID]
	if sb == nil {
		s.mu.Unlock()
		return fmt.Errorf("sandbox %q not found", sandboxID)
	}
	if sb.state != stateRunning {
		s.mu.Unlock()
		return fmt.Errorf("sandbox %q is %s", sandboxID, sb.state)
	}
	s.expireLocked(sb)
	return nil
}

// removeLocked forgets a sandbox; the caller then calls destroy outside the lock.
func (s *Server) removeLocked(sb *sandbox) {
	if s.sandboxes[sb.id] == sb {
		s.recordEventLocked(sb, evKilled, nil)
	}
	delete(s.sandboxes, sb.id)
	if sb.timer != nil {
		sb.timer.Stop()
	}
	sb.timerGen++
}

// pauseLocked freezes the sandbox's processes (or kills them when memory is
// false) and drops its envd streams. Caller holds s.mu.
func (s *Server) pauseLocked(sb *sandbox, memory bool) {
	now := time.Now().UTC()
	sb.state = statePaused
	sb.endAt = now
	sb.pausedByMemory = memory
	s.recordEventLocked(sb, evPaused, nil)
	if sb.timer != nil {
		sb.timer.Stop()
	}
	sb.timerGen++
	if memory {
		sb.Freeze()
	} else {
		sb.Halt()
	}
}

// resumeLocked continues a paused sandbox for timeout. Caller holds s.mu.
func (s *Server) resumeLocked(sb *sandbox, timeout time.Duration) {
	now := time.Now().UTC()
	sb.state = stateRunning
	sb.startedAt = now
	sb.endAt = now.Add(timeout)
	sb.executionID = ids.UUID()
	s.recordEventLocked(sb, evResumed, nil)
	if sb.pausedByMemory {
		sb.Thaw()
	} else {
		sb.Reboot()
	}
	s.armTimerLocked(sb)
}

func (sb *sandbox) lifecycleOnTimeout() string {
	if sb.autoPause {
		return "pause"
	}
	return "kill"
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
