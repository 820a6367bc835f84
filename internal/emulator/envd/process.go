package envd

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

const (
	exitedRetention  = 30 * time.Second
	outputChunkSize  = 32 << 10
	pipeIdleAfterEnd = 250 * time.Millisecond
)

// processConfigJSON mirrors process.ProcessConfig.
type processConfigJSON struct {
	Cmd  string            `json:"cmd"`
	Args []string          `json:"args,omitempty"`
	Envs map[string]string `json:"envs,omitempty"`
	Cwd  *string           `json:"cwd,omitempty"`
}

// endInfo is the Go-style exit description envd sends in the end event.
type endInfo struct {
	ExitCode int32
	Exited   bool
	Status   string
	Error    string
}

type eventKind int

const (
	evStdout eventKind = iota
	evStderr
	evEnd
)

type procEvent struct {
	kind eventKind
	data []byte
	end  endInfo
}

type subscriber struct {
	ch   chan procEvent
	done chan struct{}
	once sync.Once
}

func (sub *subscriber) close() { sub.once.Do(func() { close(sub.done) }) }

// process is one command started through Process/Start.
type process struct {
	pid     uint32 // as the sandbox sees it (its PID namespace, with a private root)
	hostPID int    // as the host sees it
	group   int    // its process group: the launcher's pid (nsenter, with a private root)
	start   uint64 // the group leader's start time (clock ticks after boot): group and start name it alone
	tag     string
	config  processConfigJSON

	cmd     *exec.Cmd
	stdinMu sync.Mutex
	stdin   *os.File // nil when stdin is disabled or closed; the terminal for pty
	hasPipe bool
	pty     bool
	tty     *os.File // the pseudo-terminal of a pty process, for resizing

	mu       sync.Mutex
	deadline *processDeadline
	// deadlineKilled is set before its deadline kills the process: its streams then end with
	// deadline_exceeded, as envd's do when the request's context ends, whichever of the
	// process's end and the stream's own deadline timer they see first.
	deadlineKilled atomic.Bool
	subs           map[*subscriber]struct{}
	end            *endInfo
	exitedAt       time.Time
	done           chan struct{}
}

// processTable holds the processes of one sandbox.
type processTable struct {
	sb     *Machine
	mu     sync.Mutex
	byPID  map[uint32]*process
	groups map[int]uint64      // process groups that may still have members → their leader's start time
	mntNS  map[string]*os.File // mount namespaces (isolation mode), held open so their IDs are not reused
}

func newProcessTable(sb *Machine) *processTable {
	return &processTable{sb: sb, byPID: map[uint32]*process{}, groups: map[int]uint64{}, mntNS: map[string]*os.File{}}
}

// buildEnv is envd's order: PATH, HOME, USER, LOGNAME, the egress proxy,
// the sandbox's identity (sandbox_identity.go) and E2B_EVENTS_ADDRESS (hyperloop.go), sandbox
// envs, request envs.
func (pt *processTable) buildEnv(reqEnvs map[string]string, home, user string) []string {
	env := map[string]string{"PATH": sandboxos.DefaultPath, "HOME": home, "USER": user, "LOGNAME": user}
	if !pt.sb.settings.Isolate {
		env["TMPDIR"] = pt.sb.tmpDir()
	}
	if p := pt.sb.standInPath(); p != "" {
		// On PATH, and as an exported bash function too: a login shell's /etc/profile resets PATH.
		env["PATH"] = sandboxos.DefaultPath + ":" + p
		env["BASH_FUNC_mcp-gateway%%"] = "() { '" + strings.ReplaceAll(filepath.Join(p, sandboxos.MCPGatewayCommand), "'", `'\''`) + "' \"$@\"; }"
		env["E2B_EMULATOR_SANDBOX_ROOT"] = pt.sb.rootDir() // where the sandbox's own / is, for the stand-ins
	}
	if pt.sb.settings.ProxyEnv != nil {
		for k, v := range pt.sb.settings.ProxyEnv(pt.sb.id) {
			env[k] = v
		}
	}
	for k, v := range pt.sb.identityEnv() {
		env[k] = v
	}
	if ip := pt.sb.settings.HyperloopIP; ip != "" {
		env["E2B_EVENTS_ADDRESS"] = "http://" + ip
	}
	for k, v := range pt.sb.envVars {
		env[k] = v
	}
	for k, v := range reqEnvs {
		env[k] = v
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// isolationWrapper makes /home/user and /tmp private to the sandbox inside a
// new mount namespace, shows the sandbox's boot ID (boot.go) where the
// kernel's is, mounts the volumes (volumeMountScript), then execs the
// command. The sources may live under /tmp, so they are bound before /tmp
// is; the recursive binds of home and tmp carry the volumes mounted inside
// them. Closing fd 3 at the exec tells start the command runs (sandboxos.ExecSync);
// as root the capability dropper comes first, with its mounts made, and closes it.
func isolationWrapper(sb *Machine, dropping bool) string {
	closeSync := "3>&- "
	if dropping {
		closeSync = ""
	}
	return `mount --make-rprivate / && { mount --bind "$4" /proc/sys/kernel/random/boot_id 2>/dev/null || :; }` +
		volumeMountScript(sb) +
		` && mount --rbind "$1" /home/user && mount --rbind "$2" /tmp && cd "$3" && shift 4 && exec ` + closeSync + `"$@"`
}

// asUser are the words before the command that make the shared layout's
// wrapper exec it as id: the host's setpriv (none for nil, the emulator's own user).
func (sb *Machine) asUser(id *sandboxos.Identity) []string {
	if id == nil || id.Root() {
		return nil
	}
	groups := make([]string, len(id.Groups))
	for i, g := range id.Groups {
		groups[i] = strconv.FormatUint(uint64(g), 10)
	}
	return []string{sb.settings.Setpriv, "--reuid=" + strconv.FormatUint(uint64(id.UID), 10),
		"--regid=" + strconv.FormatUint(uint64(id.GID), 10), "--groups=" + strings.Join(groups, ","), "--"}
}

// start runs cfg like envd does and returns once the process exists, with a
// subscriber attached before any output is read. With term it runs on a
// pseudo-terminal of that size.
func (pt *processTable) start(cfg processConfigJSON, user string, withStdin bool, tag string, term *ptyJSON) (*process, *subscriber, error) {
	if cfg.Cmd == "" {
		return nil, nil, connectrpc.Errorf("invalid_argument", "process cmd is empty")
	}
	id, err := pt.sb.identity(user)
	if err != nil {
		return nil, nil, connectrpc.Errorf("permission_denied", "%v", err)
	}
	// A private root is the user's whole machine: its home and relative paths are the user's, as
	// envd's are. The shared layout's commands see the host outside /home/user and /tmp, so
	// every user keeps the sandbox's /home/user there.
	home := VirtualHome
	cwd := ""
	if cfg.Cwd != nil {
		cwd = *cfg.Cwd
	}
	if pt.sb.root != nil {
		home, cwd = userHome(user), userPath(user, cwd)
		if id != nil {
			home = id.Home
		}
	}
	vcwd, hostCwd := pt.sb.commandPath(cwd)
	if cfg.Cwd == nil || *cfg.Cwd == "" {
		vcwd, hostCwd = pt.sb.defaultCwd(user)
	}
	if st, err := os.Stat(hostCwd); err != nil || !st.IsDir() {
		return nil, nil, connectrpc.Errorf("invalid_argument", "cwd '%s' does not exist", vcwd)
	}
	if err := pt.checkCommand(cfg.Cmd, cfg.Envs); err != nil {
		return nil, nil, err
	}
	var cmd *exec.Cmd
	var started *sandboxos.ExecSync // isolation: the wrapper tells when it execs the command
	setCredential := false          // the shared layout without mount namespaces: the process starts as id
	if pt.sb.root != nil {
		cmd = pt.sb.root.Command(vcwd, cfg.Cmd, cfg.Args, id)
		pt.sb.root.SetEnv(cmd, pt.buildEnv(cfg.Envs, home, user))
		if started, err = sandboxos.NewExecSync(cmd); err != nil {
			return nil, nil, err
		}
	} else if pt.sb.settings.Isolate {
		// The shared layout's root is the host's: as root, the command drops the capabilities
		// that reach beyond the sandbox once the wrapper's mounts are made (sandboxos.DropCaps).
		args := []string{"/bin/sh", "-c", "", "sh", pt.sb.homeDir(), pt.sb.tmpDir(), vcwd, pt.sb.bootIDPath()}
		wrapped := len(args)
		cmd = exec.Command(args[0], append(append(append(args[1:], pt.sb.asUser(id)...), cfg.Cmd), cfg.Args...)...)
		dropping, err := sandboxos.DropCaps(cmd, wrapped, nil, "--sync-fd", "3")
		if err != nil {
			return nil, nil, connectrpc.Errorf("internal", "error starting process: %v", err)
		}
		cmd.Args[2] = isolationWrapper(pt.sb, dropping)
		cmd.Dir = "/"
		sandboxos.SetCommandEnv(cmd, pt.buildEnv(cfg.Envs, home, user))
		if started, err = sandboxos.NewExecSync(cmd); err != nil {
			return nil, nil, err
		}
	} else {
		cmd = exec.Command(cfg.Cmd, cfg.Args...)
		cmd.Dir = hostCwd
		dropping, err := sandboxos.DropCaps(cmd, 0, id)
		if err != nil {
			return nil, nil, connectrpc.Errorf("internal", "error starting process: %v", err)
		}
		setCredential = id != nil && !dropping // the dropper sets them as it drops
		sandboxos.SetCommandEnv(cmd, pt.buildEnv(cfg.Envs, pt.sb.homeDir(), user))
	}
	if pt.sb.root == nil {
		cmd.SysProcAttr = sandboxos.SysProcAttr(pt.sb.settings.Isolate)
		if setCredential {
			cmd.SysProcAttr = sandboxos.WithCredential(cmd.SysProcAttr, *id)
		}
	}

	var pio processIO
	if term != nil {
		pio, err = attachTerminal(cmd, term)
	} else {
		pio, err = attachPipes(cmd, withStdin)
	}
	if err != nil {
		if started != nil {
			started.Abort()
		}
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		pio.closeAll()
		if started != nil {
			started.Abort()
		}
		return nil, nil, connectrpc.Errorf("internal", "error starting process: %v", err)
	}
	closeAll(pio.childEnds...)
	if started != nil {
		started.Wait()
	}

	hostPID, pid := cmd.Process.Pid, cmd.Process.Pid
	if pt.sb.root != nil {
		// nsenter forks the command into the sandbox's PID namespace; its pid there is
		// the one the sandbox's own code sees ($$, kill, ps), as in E2B's VM.
		hostPID = pt.sb.root.CommandPID(hostPID)
		pid = sandboxos.InnermostPID(hostPID)
	}
	p := &process{
		pid: uint32(pid), hostPID: hostPID, group: cmd.Process.Pid, start: sandboxos.ProcessStart(cmd.Process.Pid), tag: tag, config: cfg, cmd: cmd,
		stdin: pio.in, hasPipe: withStdin, pty: term != nil, tty: pio.tty,
		subs: map[*subscriber]struct{}{}, done: make(chan struct{}),
	}
	sub, _ := p.subscribe()
	pt.mu.Lock()
	pt.prune()
	pt.byPID[p.pid] = p
	pt.trackLocked(cmd.Process.Pid, p.start)
	pt.mu.Unlock()
	pt.sb.mu.Lock()
	killed := pt.sb.killed
	pt.sb.mu.Unlock()
	if killed { // the sandbox went away while this command started
		sandboxos.KillGroup(cmd.Process.Pid, p.start, sandboxos.SigKill)
	}
	pt.sb.AddLog("info", "Process started", map[string]string{"logger": processLogger, "pid": fmt.Sprint(p.pid), "cmd": cfg.Cmd})
	go p.run(pt, pio.out, pio.errOut)
	return p, sub, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// subscribe attaches a listener; it returns the end info instead when the
// process has already ended.
func (p *process) subscribe() (*subscriber, *endInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end != nil {
		e := *p.end
		return nil, &e
	}
	s := &subscriber{ch: make(chan procEvent, 16), done: make(chan struct{})}
	p.subs[s] = struct{}{}
	return s, nil
}

func (p *process) unsubscribe(s *subscriber) {
	s.close()
	p.mu.Lock()
	delete(p.subs, s)
	p.mu.Unlock()
}

func (p *process) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end == nil
}

func (p *process) writeStdin(data []byte) error {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin == nil {
		return connectrpc.Errorf("internal", "stdin not enabled or closed")
	}
	if _, err := p.stdin.Write(data); err != nil {
		return connectrpc.Errorf("internal", "error writing to stdin: %v", err)
	}
	return nil
}

func (p *process) closeStdin() {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin != nil {
		_ = p.stdin.Close()
		p.stdin = nil
	}
}

// signalGroup signals the process's whole process group.
func (p *process) signalGroup(sig sandboxos.Signal) {
	sandboxos.KillGroup(p.group, p.start, sig)
}

// prune forgets processes that ended more than exitedRetention ago. Caller holds pt.mu.
func (pt *processTable) prune() {
	for pid, p := range pt.byPID {
		p.mu.Lock()
		old := p.end != nil && time.Since(p.exitedAt) > exitedRetention
		p.mu.Unlock()
		if old {
			delete(pt.byPID, pid)
		}
	}
}

// HostProcess is the host's pid of the sandbox's process pid and the host's id of its
// process group, for tests that look at it from the host; ok is false for a process
// the sandbox does not list.
func (sb *Machine) HostProcess(pid uint32) (hostPID, group int, ok bool) {
	sb.procs.mu.Lock()
	defer sb.procs.mu.Unlock()
	p := sb.procs.byPID[pid]
	if p == nil {
		return 0, 0, false
	}
	return p.hostPID, p.group, true
}

// find selects a process by pid or tag.
func (pt *processTable) find(pid *uint32, tag *string) *process {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	pt.prune()
	if pid != nil {
		return pt.byPID[*pid]
	}
	if tag != nil {
		for _, p := range pt.byPID {
			if p.tag == *tag && p.running() {
				return p
			}
		}
		for _, p := range pt.byPID {
			if p.tag == *tag {
				return p
			}
		}
	}
	return nil
}

func (pt *processTable) list() []*process {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	pt.prune()
	out := make([]*process, 0, len(pt.byPID))
	for _, p := range pt.byPID {
		if p.running() {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pid < out[j].pid })
	return out
}

func trimSignalName(s string) string { return strings.TrimPrefix(s, "SIGNAL_") }

// checkCommand fails like envd's start when the executable does not exist
// (in the isolated case the wrapper would otherwise exit with 127).
func (pt *processTable) checkCommand(name string, envs map[string]string) error {
	if msg := sandboxos.CheckEnv(envs); msg != "" {
		return connectrpc.Errorf("invalid_argument", "%s", strings.Replace(msg, "envVars", "envs", 1))
	}
	if strings.Contains(name, "/") {
		_, host := pt.sb.commandPath(name)
		if st, err := os.Stat(host); err != nil || st.IsDir() {
			return connectrpc.Errorf("internal", "error starting process: fork/exec %s: no such file or directory", name)
		}
		return nil
	}
	pathEnv := sandboxos.DefaultPath
	if p, ok := envs["PATH"]; ok {
		pathEnv = p
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		candidate := path.Join(dir, name)
		_, host := pt.sb.commandPath(candidate)
		if st, err := os.Stat(host); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return nil
		}
	}
	return connectrpc.Errorf("internal", "error starting process: exec: %q: executable file not found in $PATH", name)
}

// processDeadline kills a process when its Start request's deadline passes.
// The clock stops while the sandbox is paused, as a frozen VM's does.
type processDeadline struct {
	timer     *time.Timer
	endsAt    time.Time
	remaining time.Duration // while paused
}

func (p *process) setDeadline(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end != nil {
		return
	}
	p.deadline = &processDeadline{endsAt: time.Now().Add(d), timer: time.AfterFunc(d, p.deadlineHit)}
}

func (p *process) deadlineHit() {
	if p.running() {
		p.deadlineKilled.Store(true)
		p.signalGroup(sandboxos.SigKill)
	}
}

// freezeDeadline stops the deadline clock (sandbox paused).
func (p *process) freezeDeadline() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dl := p.deadline; dl != nil && dl.timer != nil && dl.timer.Stop() {
		dl.remaining = time.Until(dl.endsAt)
		dl.timer = nil
	}
}

// thawDeadline restarts the deadline clock with the time that was left.
func (p *process) thawDeadline() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dl := p.deadline; dl != nil && dl.timer == nil && p.end == nil {
		dl.endsAt = time.Now().Add(dl.remaining)
		dl.timer = time.AfterFunc(dl.remaining, p.deadlineHit)
	}
}

func (p *process) stopDeadline() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dl := p.deadline; dl != nil && dl.timer != nil {
		dl.timer.Stop()
	}
}

// forEach runs fn for every process the table still knows.
func (pt *processTable) forEach(fn func(*process)) {
	pt.mu.Lock()
	procs := make([]*process, 0, len(pt.byPID))
	for _, p := range pt.byPID {
		procs = append(procs, p)
	}
	pt.mu.Unlock()
	for _, p := range procs {
		fn(p)
	}
}
