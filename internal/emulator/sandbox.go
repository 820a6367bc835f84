package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
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

// sandboxHost is what a sandbox needs of the emulator that runs it, in
// place of a pointer back to the Server.
type sandboxHost struct {
	isolate   bool // commands get mount namespaces
	logf      func(format string, args ...any)
	proxyEnv  func(sandboxID string) map[string]string // the egress proxy variables; nil without a proxy
	lifecycle *sync.Mutex                              // Server.mu, which guards the lifecycle fields
	// standInPath is a directory of stand-in commands (mcp-gateway) appended to PATH where
	// sandboxes share the host's root; "" with private roots, whose skeleton has them.
	standInPath string
}

// sandbox is one emulated sandbox. Lifecycle fields are guarded by Server.mu;
// logs, samples, streams and watchers by sandbox.mu.
type sandbox struct {
	host           *sandboxHost
	id             string
	tmpl           state.Template  // as it was when the sandbox started
	build          state.Build     // the build the sandbox started from
	root           *sandboxos.Root // private root filesystem; nil in the shared layout
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
	mounts         []volumeMount // longest path first; fixed at create
	executionID    string        // new at create and at every resume
	mcp            json.RawMessage
	iam            *iamJSON
	dir            string
	timer          *time.Timer
	timerGen       int
	pausedByMemory bool

	procs *processTable

	mu       sync.Mutex
	logs     []logEntry
	samples  []metricSample
	streams  map[int]chan struct{}
	streamID int
	watchers map[string]*watcher
	killed   bool
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

func (sb *sandbox) homeDir() string { return filepath.Join(sb.dir, "home") }
func (sb *sandbox) tmpDir() string  { return filepath.Join(sb.dir, "tmp") }
func (sb *sandbox) rootDir() string { return filepath.Join(sb.dir, "root") }

// newSandboxLocked allocates a sandbox with its directories, copied from the
// build's files when it has any, and its volumes mounted before it boots.
// Caller holds s.mu.
func (s *Server) newSandboxLocked(t state.Template, b state.Build, ref string, mounts []volumeMount) (*sandbox, error) {
	id := newID("i", 20)
	for s.sandboxes[id] != nil {
		id = newID("i", 20)
	}
	sb := &sandbox{
		host: s.sandboxHost, id: id, tmpl: t, build: b, templateRef: ref, state: stateRunning,
		dir:      filepath.Join(s.dataDir, "sandboxes", id),
		streams:  map[int]chan struct{}{},
		watchers: map[string]*watcher{},
		metadata: map[string]string{}, envVars: map[string]string{},
	}
	sb.procs = newProcessTable(sb)
	if s.rootfs != nil {
		if err := s.mountRoot(sb, b); err != nil {
			sandboxos.RemoveTree(sb.dir)
			return nil, err
		}
		if err := s.mountVolumes(sb, mounts); err != nil {
			sb.root.Stop()
			sandboxos.RemoveTree(sb.dir)
			return nil, err
		}
		if err := sb.boot(); err != nil {
			sb.root.Stop()
			sandboxos.RemoveTree(sb.dir)
			return nil, err
		}
		return sb, nil
	}
	if b.FilesDir != "" {
		if err := hostfs.CopyTree(b.FilesDir, sb.dir); err != nil {
			_ = os.RemoveAll(sb.dir)
			return nil, fmt.Errorf("copy template files: %w", err)
		}
	}
	for _, d := range []string{sb.homeDir(), sb.tmpDir(), sb.rootDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(sb.tmpDir(), 0o777|os.ModeSticky); err != nil {
		return nil, err
	}
	if err := s.mountVolumes(sb, mounts); err != nil {
		return nil, err
	}
	if err := sb.boot(); err != nil {
		return nil, err
	}
	return sb, nil
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
		sb.addLog("info", "Sandbox paused after timeout", nil)
		return
	}
	s.removeLocked(sb)
	s.mu.Unlock()
	sb.addLog("info", "Sandbox killed after timeout", nil)
	sb.destroy()
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
	sb.dropStreams()
	if memory {
		sb.procs.forEach((*process).freezeDeadline)
		sb.procs.signalAll(sandboxos.SigStop)
	} else {
		sb.procs.signalAll(sandboxos.SigKill)
	}
}

// resumeLocked continues a paused sandbox for timeout. Caller holds s.mu.
func (s *Server) resumeLocked(sb *sandbox, timeout time.Duration) {
	now := time.Now().UTC()
	sb.state = stateRunning
	sb.startedAt = now
	sb.endAt = now.Add(timeout)
	sb.executionID = newUUID()
	s.recordEventLocked(sb, evResumed, nil)
	if sb.pausedByMemory {
		sb.procs.signalAll(sandboxos.SigCont)
		sb.procs.forEach((*process).thawDeadline)
	} else {
		sb.reboot()
	}
	s.armTimerLocked(sb)
}

// destroy kills every process, drops streams and removes the files.
func (sb *sandbox) destroy() {
	sb.mu.Lock()
	sb.killed = true
	sb.mu.Unlock()
	sb.dropStreams()
	sb.closeWatchers()
	sb.procs.killAll()
	if sb.root != nil {
		sb.root.Stop()
		sandboxos.RemoveTree(sb.dir)
		return
	}
	if err := os.RemoveAll(sb.dir); err != nil {
		sb.host.logf("emulator: remove sandbox %s files: %v", sb.id, err)
	}
}

// addStream registers an open envd stream; the channel closes when the
// sandbox is paused or killed and the stream must be dropped.
func (sb *sandbox) addStream() (<-chan struct{}, func()) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	ch := make(chan struct{})
	if sb.killed {
		close(ch)
		return ch, func() {}
	}
	sb.streamID++
	id := sb.streamID
	sb.streams[id] = ch
	return ch, func() {
		sb.mu.Lock()
		defer sb.mu.Unlock()
		delete(sb.streams, id)
	}
}

func (sb *sandbox) dropStreams() {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for id, ch := range sb.streams {
		close(ch)
		delete(sb.streams, id)
	}
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
