package envd

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Host is what a machine needs of the emulator that runs it, in place of a
// pointer back to the emulator.
type Settings struct {
	Isolate  bool // commands get mount namespaces
	Logf     func(format string, args ...any)
	ProxyEnv func(sandboxID string) map[string]string // the egress proxy variables; nil without a proxy
	// HyperloopIP is where processes reach E2B's hyperloop server (hyperloop.go); "" without one.
	HyperloopIP string
	// StreamIdleTimeout bounds how long a stream waits on a peer that neither
	// reads what is sent nor sends anything.
	StreamIdleTimeout time.Duration
	// SingleUser is set where the emulator cannot run anything as another
	// user than its own (SingleUserWhy says why): the one user requests may
	// name, whose commands run as the emulator's own user. "" means each
	// request acts as the user it names, with that user's IDs.
	SingleUser, SingleUserWhy string
	// Setpriv is the host's setpriv, with which the shared layout's mount
	// namespace wrapper (Isolate without a private root) becomes the user.
	Setpriv string

	// teardowns counts the private roots still being taken down after Destroy.
	teardowns sync.WaitGroup
}

// WaitTeardowns waits until the private roots of every destroyed machine are
// taken down: their namespaces and cgroups gone, their files removed.
func (s *Settings) WaitTeardowns() {
	if s != nil {
		s.teardowns.Wait()
	}
}

// Config is what a machine is made of; none of it changes for its life.
type Config struct {
	ID, TemplateID, TeamID string
	Dir                    string          // the sandbox's directory under the data dir
	Root                   *sandboxos.Root // a started private root; nil in the shared layout
	FilesDir               string          // shared layout: the build's files, copied into Dir
	Workdir                string          // the build's working directory; "" is /home/user
	EnvVars                map[string]string
	Mounts                 []VolumeMount // clean absolute paths
	AccessToken            string        // envd's access token; "" for a sandbox that is not secure
	// CPUCount and MemoryMB are the sandbox's resources, from its build (0: the base
	// template's): its metrics report the whole machine in them.
	CPUCount, MemoryMB int
}

// Machine is one sandbox as its envd sees it: its files, its processes and
// watchers, its log and its resource samples. What E2B's control plane keeps
// of a sandbox (state, timeout, network) is not here.
type Machine struct {
	settings    *Settings
	id          string
	templateID  string
	teamID      string
	dir         string
	root        *sandboxos.Root // private root filesystem; nil in the shared layout
	workdir     string
	envVars     map[string]string
	mounts      []VolumeMount // longest path first
	accessToken string
	cpuCount    int   // the machine's CPUs, for its metrics
	memTotal    int64 // the machine's memory in bytes, for its metrics

	procs *processTable

	mu       sync.Mutex // guards what follows
	logs     []LogEntry
	samples  []MetricSample
	streams  map[int]chan struct{}
	streamID int
	watchers map[string]*watcher
	killed   bool
}

// Start makes the sandbox's disk (the private root as given, or the build's
// files copied into its directory), mounts its volumes and boots it. On an
// error nothing of it is left.
func Start(settings *Settings, cfg Config) (*Machine, error) {
	sb := &Machine{
		settings: settings, id: cfg.ID, templateID: cfg.TemplateID, teamID: cfg.TeamID, dir: cfg.Dir, root: cfg.Root,
		workdir: cfg.Workdir, envVars: copyMap(cfg.EnvVars), mounts: sortMounts(cfg.Mounts),
		accessToken: cfg.AccessToken,
		cpuCount:    cmp.Or(cfg.CPUCount, int(store.DefaultCPUCount)),
		memTotal:    int64(cmp.Or(cfg.MemoryMB, int(store.DefaultMemoryMB))) << 20,
		streams:     map[int]chan struct{}{},
		watchers:    map[string]*watcher{},
	}
	sb.procs = newProcessTable(sb)
	if err := sb.makeDisk(cfg.FilesDir); err != nil {
		sb.removeDisk()
		return nil, err
	}
	if err := sb.mountVolumes(); err != nil {
		sb.removeDisk()
		return nil, err
	}
	if err := sb.boot(); err != nil {
		sb.removeDisk()
		return nil, err
	}
	return sb, nil
}

// makeDisk prepares the shared layout's directories; a private root has its own.
func (sb *Machine) makeDisk(filesDir string) error {
	if sb.root != nil {
		return nil
	}
	if filesDir != "" {
		if err := hostfs.CopyTree(filesDir, sb.dir); err != nil {
			return fmt.Errorf("copy template files: %w", err)
		}
	}
	for _, d := range []string{sb.homeDir(), sb.tmpDir(), sb.rootDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if sb.separatesUsers() {
		// The home of the sandbox's user is that user's, as /home/user is on E2B.
		user, err := sb.identity(defaultUser)
		if err != nil {
			return err
		}
		if err := chownTo(sb.homeDir(), user); err != nil {
			return err
		}
	}
	return os.Chmod(sb.tmpDir(), 0o777|os.ModeSticky)
}

func (sb *Machine) removeDisk() {
	if sb.root != nil {
		sb.root.Stop()
		sandboxos.RemoveTree(sb.dir)
		return
	}
	if err := os.RemoveAll(sb.dir); err != nil {
		sb.settings.Logf("emulator: remove sandbox %s files: %v", sb.id, err)
	}
}

// Root is the sandbox's private root filesystem; nil in the shared layout.
func (sb *Machine) Root() *sandboxos.Root { return sb.root }

// Dir is the sandbox's directory under the data dir.
func (sb *Machine) Dir() string { return sb.dir }

func (sb *Machine) homeDir() string { return filepath.Join(sb.dir, "home") }
func (sb *Machine) tmpDir() string  { return filepath.Join(sb.dir, "tmp") }
func (sb *Machine) rootDir() string { return filepath.Join(sb.dir, "root") }

// standInPath is where sandboxes sharing the host's root keep the stand-in commands their
// template's files brought (the mcp-gateway template's gateway), "" when there are none: their
// own usr/local/bin is no directory on the host's PATH. Private roots have them in place.
func (sb *Machine) standInPath() string {
	if sb.root != nil {
		return ""
	}
	p := filepath.Join(sb.rootDir(), "usr", "local", "bin")
	if _, err := os.Stat(filepath.Join(p, sandboxos.MCPGatewayCommand)); err != nil {
		return ""
	}
	return p
}

// Freeze stops every process (a pause that keeps memory): their deadlines
// stop counting, and the envd streams are dropped.
func (sb *Machine) Freeze() {
	sb.dropStreams()
	sb.procs.forEach((*process).freezeDeadline)
	sb.procs.signalAll(sandboxos.SigStop)
}

// Thaw continues what Freeze stopped.
func (sb *Machine) Thaw() {
	sb.procs.signalAll(sandboxos.SigCont)
	sb.procs.forEach((*process).thawDeadline)
}

// Halt kills every process and drops the envd streams (a pause that keeps
// only the files); Reboot then starts the machine again.
func (sb *Machine) Halt() {
	sb.dropStreams()
	sb.procs.signalAll(sandboxos.SigKill)
}

// Destroy kills every process, drops streams and removes the files.
func (sb *Machine) Destroy() {
	sb.mu.Lock()
	sb.killed = true
	sb.mu.Unlock()
	sb.dropStreams()
	sb.closeWatchers()
	sb.procs.killAll()
	if sb.root == nil {
		sb.removeDisk()
		return
	}
	// Its commands are killed by now. The PID namespace's end (which takes what
	// escaped them: their own sessions, mount namespaces) and the unmounts can
	// take the kernel a second or two on a busy host, longer than a client that
	// kills its sandboxes as it exits may wait for the answer (E2B's kill answers
	// without such a wait); the server's Close waits for them.
	sb.settings.teardowns.Add(1)
	go func() {
		defer sb.settings.teardowns.Done()
		sb.removeDisk()
	}()
}

// addStream registers an open envd stream; the channel closes when the
// sandbox is paused or killed and the stream must be dropped.
func (sb *Machine) addStream() (<-chan struct{}, func()) {
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

func (sb *Machine) dropStreams() {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for id, ch := range sb.streams {
		close(ch)
		delete(sb.streams, id)
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
