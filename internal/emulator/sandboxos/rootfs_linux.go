package sandboxos

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
)

// Every sandbox's root filesystem is an overlay mounted in a mount namespace
// of its own, held by a small "holder" process (sh exec'ing cat on a pipe
// the emulator keeps: when the emulator goes away, so do the holder and the
// mounts); the sandbox's processes run under an init of their own in a PID
// and mount namespace below it (mountScript). Layers are directories in overlayfs's upper-layer format
// (whiteouts, opaque directories), newest first; under them lies a base
// root. The host base root is a skeleton directory (fresh /home/user, /tmp,
// /root, /run, mount points, the host's top-level symlinks such as
// /bin -> usr/bin, an /etc overlay adding the "user" account) plus, for each
// of the host's /usr, /etc, /opt, /var and /srv, a nested overlay whose
// lowest layer is the host directory itself, read-only (with the skeleton's
// /etc and /usr, which adds the sudo shim, just over it). Writes always land
// in the sandbox's upper directory under DataDir. Commands enter the
// init's namespaces with nsenter; the emulator reaches the same files
// through /proc/<holder>/root.

// hostLowerDirs are the host directories sandboxes see (read-only, copy on write).
var hostLowerDirs = []string{"usr", "etc", "opt", "var", "srv"}

// freshDirs are created empty in the base skeleton.
var freshDirs = map[string]os.FileMode{
	"home": 0o755, "home/user": 0o755, "root": 0o700, "tmp": 0o777 | os.ModeSticky, "run": 0o755,
	"mnt": 0o755, "media": 0o755, "proc": 0o555, "sys": 0o555, "dev": 0o755, "boot": 0o755,
}

func FindRootfsTools(userns bool) (*Tools, error) {
	t := &Tools{Userns: userns}
	for _, x := range []struct {
		dst  *string
		name string
	}{{&t.unshare, "unshare"}, {&t.nsenter, "nsenter"}, {&t.chroot, "chroot"}, {&t.sh, "sh"}} {
		p, err := exec.LookPath(x.name)
		if err != nil {
			if p, err = exec.LookPath("/usr/sbin/" + x.name); err != nil {
				return nil, fmt.Errorf("%s not found", x.name)
			}
		}
		*x.dst = p
	}
	// bash reaps every child it is handed, not only its own: as init, orphans
	// must not stay zombies (they count against the sandbox's pids limit).
	t.init = t.sh
	if p, err := exec.LookPath("bash"); err == nil {
		t.init = p
	}
	umount, err := hostUmount()
	if err != nil {
		return nil, err
	}
	t.umount = umount
	if !userns && os.Geteuid() == 0 {
		// Commands pass through it to drop the capabilities that count on the host (capdrop_linux.go).
		if t.capDrop = emulatorExecutable(); t.capDrop == nil {
			return nil, errors.New("the emulator's executable cannot be opened")
		}
	}
	return t, nil
}

// hostUmount is a shell command running the host's umount from where the
// sandbox's init finds the host's tree after pivot_root ($host): a root
// (an image's) may have no umount, and the host's would look for its
// loader and libraries in the sandbox's root, so they are named.
func hostUmount() (string, error) {
	p, err := exec.LookPath("umount")
	if err != nil {
		if p, err = exec.LookPath("/usr/bin/umount"); err != nil {
			return "", errors.New("umount not found")
		}
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return "", err
	}
	f, err := elf.Open(p)
	if err != nil {
		return "", fmt.Errorf("umount: %w", err)
	}
	defer f.Close()
	cmd := `"$host"` + shellQuote(p)
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		data := make([]byte, prog.Filesz)
		if _, err := prog.ReadAt(data, 0); err != nil {
			return "", err
		}
		interp, err := filepath.EvalSymlinks(strings.TrimRight(string(data), "\x00"))
		if err != nil {
			return "", fmt.Errorf("umount's loader: %w", err)
		}
		var dirs []string
		seen := map[string]bool{}
		for _, pattern := range []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/lib/*-linux-*", "/usr/lib/*-linux-*"} {
			matches, _ := filepath.Glob(pattern)
			for _, m := range matches {
				if r, err := filepath.EvalSymlinks(m); err == nil && !seen[r] {
					seen[r] = true
					dirs = append(dirs, `$host`+r)
				}
			}
		}
		cmd = `"$host"` + shellQuote(interp) + ` --library-path "` + strings.Join(dirs, ":") + `" ` + cmd
	}
	return cmd, nil
}

// PrepareHostBase writes the host base skeleton into dir.
func PrepareHostBase(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir("/")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		link, err := os.Readlink("/" + e.Name())
		if err != nil || strings.HasPrefix(link, "/") {
			continue // only relative top-level links (bin -> usr/bin and the like)
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
		if err := os.Symlink(link, filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	for _, d := range hostLowerDirs {
		if st, err := os.Lstat("/" + d); err == nil && st.IsDir() {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				return err
			}
		}
	}
	if err := makeFreshDirs(dir, "/etc"); err != nil {
		return err
	}
	if err := WriteSudo(dir, true); err != nil {
		return err
	}
	if err := writePythonLink(dir); err != nil {
		return err
	}
	// Only the mcp-gateway template has the gateway (a layer of its own); a skeleton an older
	// emulator wrote may still hold it.
	_ = os.Remove(filepath.Join(dir, "usr", "local", "bin", MCPGatewayCommand))
	return writeEtcOverrides(filepath.Join(dir, "etc"))
}

// makeFreshDirs makes the skeleton's fresh directories; as root, /home/user
// belongs to the account user (from the passwd under etc, else the base
// template's 1000:1000), whose commands write there.
func makeFreshDirs(dir, etc string) error {
	for _, name := range []string{"home", "home/user", "root", "tmp", "run", "mnt", "media", "proc", "sys", "dev", "boot"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(p, freshDirs[name]); err != nil {
			return err
		}
	}
	if os.Geteuid() != 0 {
		return nil
	}
	user, err := LookupIdentity(etc, "user")
	if err != nil {
		return err
	}
	return os.Lchown(filepath.Join(dir, "home", "user"), int(user.UID), int(user.GID))
}

// writeEtcOverrides adds the "user" account (uid and gid 1000, in place of a
// host account holding them) to copies
// of the host's passwd and group, and copies hosts and resolv.conf, which
// container runtimes often bind-mount (overlayfs would not see them).
func writeEtcOverrides(etc string) error {
	if err := os.MkdirAll(etc, 0o755); err != nil {
		return err
	}
	if err := addUserAccount("/etc", etc); err != nil {
		return err
	}
	if err := writeSecretOverrides(etc); err != nil {
		return err
	}
	for _, name := range []string{"hosts", "resolv.conf", "hostname"} {
		if data, err := os.ReadFile("/etc/" + name); err == nil {
			if err := os.WriteFile(filepath.Join(etc, name), data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// addUserAccount writes into etc copies of src's passwd and group with E2B's
// "user" account (uid and gid 1000, in place of an account holding them)
// where they have none.
func addUserAccount(src, etc string) error {
	for _, f := range []struct{ name, line string }{
		{"passwd", "user:x:1000:1000:user:/home/user:/bin/bash\n"},
		{"group", "user:x:1000:\n"},
	} {
		data, _ := os.ReadFile(filepath.Join(src, f.name))
		if !hasEntry(string(data), "user") {
			// E2B's user is 1000: an account holding that ID is no account of the sandbox's.
			data = []byte(withoutID(string(data), "1000"))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			data = append(data, f.line...)
		}
		if err := os.WriteFile(filepath.Join(etc, f.name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeSecretOverrides lays, over the host's /etc, a shadow and gshadow with every account of
// the sandbox's passwd and group locked, and empty files in place of the host's SSH host keys:
// a sandbox's root may read any file of the host's /etc it sees, and the host's password
// hashes and keys are none of its business (an E2B VM has its own).
func writeSecretOverrides(etc string) error {
	tables := []struct{ from, to, entry string }{
		{"passwd", "shadow", "%s:*:19000:0:99999:7:::\n"},
		{"group", "gshadow", "%s:*::\n"},
	}
	for _, t := range tables {
		data, err := os.ReadFile(filepath.Join(etc, t.from))
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, l := range strings.Split(string(data), "\n") {
			if name, _, ok := strings.Cut(l, ":"); ok && name != "" {
				fmt.Fprintf(&b, t.entry, name)
			}
		}
		if err := os.WriteFile(filepath.Join(etc, t.to), []byte(b.String()), 0o640); err != nil {
			return err
		}
	}
	keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	if len(keys) > 0 {
		if err := os.MkdirAll(filepath.Join(etc, "ssh"), 0o755); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if err := os.WriteFile(filepath.Join(etc, "ssh", filepath.Base(k)), nil, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// inHostLowerDirs is dir, resolved on the host, when it lies in one of the host's folders
// every sandbox sees (hostLowerDirs); "" otherwise.
func inHostLowerDirs(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	if real, err = filepath.Abs(real); err != nil {
		return ""
	}
	for _, d := range hostLowerDirs {
		if strings.HasPrefix(real+"/", "/"+d+"/") {
			return real
		}
	}
	return ""
}

// withoutID is an /etc/passwd or /etc/group table without the entries whose ID is id.
func withoutID(table, id string) string {
	var kept []string
	for _, l := range strings.SplitAfter(table, "\n") {
		if f := strings.Split(l, ":"); len(f) >= 3 && f[2] == id {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "")
}

func hasEntry(table, name string) bool {
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, name+":") {
			return true
		}
	}
	return false
}

// PrepareImageBase writes the skeleton put over an image's root filesystem
// (image): fresh directories, hosts and resolv.conf, the image's accounts
// with E2B's user, and sudo where
// the image's /usr/bin is a plain directory (a skeleton directory would hide
// a link there).
func PrepareImageBase(dir, image string) error {
	if err := makeFreshDirs(dir, filepath.Join(image, "etc")); err != nil {
		return err
	}
	usr, errUsr := os.Lstat(filepath.Join(image, "usr"))
	bin, errBin := os.Lstat(filepath.Join(image, "usr", "bin"))
	if errUsr == nil && usr.IsDir() && errBin == nil && bin.IsDir() {
		if err := WriteSudo(dir, false); err != nil {
			return err
		}
	}
	etc := filepath.Join(dir, "etc")
	if err := os.MkdirAll(etc, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"hosts", "resolv.conf"} {
		if data, err := os.ReadFile("/etc/" + name); err == nil {
			if err := os.WriteFile(filepath.Join(etc, name), data, 0o644); err != nil {
				return err
			}
		}
	}
	// E2B gives every template built from an image its user; an image's /etc that is a link
	// (the skeleton's directory would hide it) keeps its own accounts.
	if st, err := os.Lstat(filepath.Join(image, "etc")); err == nil && st.IsDir() {
		return addUserAccount(filepath.Join(image, "etc"), etc)
	}
	return nil
}

// mountScript is the holder's shell script. The holder is in a mount
// namespace (and, with Tools.Userns, a user namespace) of its own: it waits
// for the emulator's go-ahead (sent once the holder is in the sandbox's
// cgroup), mounts the root and its nested overlays, shares them, and starts
// the sandbox's init (initScript) in a new PID namespace and a second mount
// namespace, a slave of the first: mounts the emulator adds later under the
// root (volumes) reach the sandbox, and the sandbox never sees the host's
// tree, which stays in the holder's namespace only.
func (r *Root) mountScript(dataDir string) (string, error) {
	q := shellQuote
	opt := ""
	if r.Tools.Userns {
		opt = ",userxattr"
	}
	var lines []string
	lines = append(lines, "set -e", "read -r _ || exit 1", "mount --make-rprivate /", "cd "+q(dataDir))
	lower := make([]string, 0, len(r.Layers)+2)
	for _, l := range r.Layers {
		lower = append(lower, relTo(dataDir, l))
	}
	lower = append(lower, relTo(dataDir, r.base.skeleton))
	if r.base.image != "" {
		lower = append(lower, relTo(dataDir, r.base.image))
	}
	mount := func(lowers []string, upper, work, target string) error {
		o := "lowerdir=" + strings.Join(lowers, ":") + ",upperdir=" + relTo(dataDir, upper) + ",workdir=" + relTo(dataDir, work) + opt
		if len(o) > 3800 {
			return fmt.Errorf("too many layers (%d) for one overlay mount", len(lowers))
		}
		lines = append(lines, "mount -t overlay overlay -o "+q(o)+" "+q(target))
		return nil
	}
	if err := mount(lower, r.Upper, filepath.Join(r.work, "root"), r.Merged); err != nil {
		return "", err
	}
	if r.base.image == "" {
		for _, d := range hostLowerDirs {
			if st, err := os.Lstat("/" + d); err != nil || !st.IsDir() {
				continue
			}
			var ls []string
			for _, l := range r.Layers {
				if st, err := os.Lstat(filepath.Join(l, d)); err == nil && st.IsDir() {
					ls = append(ls, relTo(dataDir, filepath.Join(l, d)))
				}
			}
			// The skeleton's /etc (accounts) and /usr (the sudo shim) lie just over the host's.
			if st, err := os.Lstat(filepath.Join(r.base.skeleton, d)); err == nil && st.IsDir() && (d == "etc" || d == "usr") {
				ls = append(ls, relTo(dataDir, filepath.Join(r.base.skeleton, d)))
			}
			ls = append(ls, "/"+d)
			for _, dir := range []string{filepath.Join(r.Upper, d), filepath.Join(r.work, d)} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return "", err
				}
			}
			if err := mount(ls, filepath.Join(r.Upper, d), filepath.Join(r.work, d), filepath.Join(r.Merged, d)); err != nil {
				return "", err
			}
		}
	}
	if r.base.image == "" {
		// The data folder (every sandbox's own layer, the saved layers, the volumes) may lie
		// in one of the host's folders every sandbox sees: an empty read-only tmpfs hides it.
		if hidden := inHostLowerDirs(dataDir); hidden != "" {
			lines = append(lines, "mount -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0555 hidden "+q(filepath.Join(r.Merged, hidden)))
		}
	}
	lines = append(lines, "mount --make-rshared "+q(r.Merged),
		// A background job's stdin is /dev/null unless it is named: fd 4 carries the holder's.
		"exec 4<&0",
		q(r.Tools.unshare)+" --mount --propagation slave --pid --fork "+q(r.Tools.init)+" -c "+q(initScript)+" init "+q(r.Merged)+" "+q(r.Tools.umount)+" "+q(r.Tools.fuse)+" <&4 4<&- &",
		"exec 4<&- cat >/dev/null")
	return strings.Join(lines, "\n") + "\n", nil
}

// initScript is the sandbox's init, PID 1 of its PID namespace, in the root
// ($1): a private /proc (this namespace's processes only), a /dev holding
// only null, zero, full, random, urandom, tty, fuse where the host has one
// ($3, fuseNode), a private devpts and shm, a
// read-only /sys (the mounts under it too: no cgroup file can be written;
// a user namespace may bind them only all together), then
// pivot_root into the root, the host's tree put under /dev/.host and
// unmounted there by the host's umount ($2, hostUmount); the emulator
// removes the empty /dev/.host (Start): after pivot_root a program the
// shell runs by name is the root's own, which may be anyone's, and must not
// run with the init's powers. It stays as a
// shell (bash, which reaps the orphans it inherits) reading its stdin:
// when the emulator goes away (even killed) the read ends, init exits and
// the kernel kills every process of the namespace, whatever session,
// group or mount namespace it made itself.
const initScript = `set -e
cd "$1"
mkdir -p proc dev sys
mount -t proc -o nosuid,nodev,noexec proc proc
mount -t tmpfs -o nosuid,nodev,noexec,mode=755,size=1m dev dev
for d in null zero full random urandom tty; do : >"dev/$d"; mount --bind "/dev/$d" "dev/$d"; done
if [ -n "$3" ]; then : >dev/fuse; mount --bind "$3" dev/fuse; fi
mkdir dev/pts dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts dev/pts
ln -s pts/ptmx dev/ptmx
mount -t tmpfs -o nosuid,nodev,mode=1777 shm dev/shm
ln -s /proc/self/fd dev/fd; ln -s /proc/self/fd/0 dev/stdin; ln -s /proc/self/fd/1 dev/stdout; ln -s /proc/self/fd/2 dev/stderr
mount --rbind /sys sys
while read -r _ _ _ _ mp _; do case $mp in "$1/sys" | "$1/sys/"*) mount -o remount,bind,ro "$mp" ;; esac; done </proc/self/mountinfo
host=/dev/.host
mkdir "dev/.host"
pivot_root . "dev/.host"
cd /
eval "$2 -l $host"
echo ready
while read -r _; do :; done
`

func relTo(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Start mounts the root in new namespaces and waits until it is ready.
func (r *Root) Start(dataDir string) error {
	for _, d := range []string{r.Upper, filepath.Join(r.work, "root"), r.Merged} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	script, err := r.mountScript(dataDir)
	if err != nil {
		return err
	}
	if r.cgroups != nil {
		if r.cgroup, err = r.cgroups.New(filepath.Base(filepath.Dir(r.Upper)), r.Limits); err != nil {
			return fmt.Errorf("sandbox cgroup: %w", err)
		}
	}
	cmd := exec.Command(r.Tools.sh, "-c", script)
	// No Pdeathsig (it follows the forking thread, not the process): the
	// holder and init end when their stdin, which only the emulator holds, closes.
	cmd.SysProcAttr = namespaceAttr(r.Tools.Userns)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		r.cgroup.Remove()
		return err
	}
	r.holder, r.stdin, r.done = cmd, stdin, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(r.done)
	}()
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("unexpected %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	if err = r.cgroup.Add(cmd.Process.Pid); err == nil {
		_, err = io.WriteString(stdin, "go\n")
	}
	if err == nil {
		select {
		case err = <-ready:
		case <-time.After(30 * time.Second):
			err = errors.New("timed out")
		}
	}
	if err == nil {
		if r.init = ChildPID(ChildPID(cmd.Process.Pid)); r.init == 0 {
			err = errors.New("the sandbox's init is not running")
		}
		r.initStart = ProcessStart(r.init)
		// The init's mount point of the host's tree, empty now (initScript).
		_ = os.Remove(filepath.Join("/proc", strconv.Itoa(r.init), "root", "dev", ".host"))
	}
	if err != nil {
		r.Stop()
		return fmt.Errorf("mount the sandbox root: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// namespaceAttr starts the holder in a new mount namespace and, with
// userns, a user namespace: as root the host's IDs 0-65535 map to the same
// IDs (files keep their owners) but every capability counts only inside the
// sandbox's own namespaces; as anyone else, root maps to the emulator's user.
func namespaceAttr(userns bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWNS}
	if !userns {
		return a
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER
	if uid := os.Geteuid(); uid == 0 {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		a.GidMappingsEnableSetgroups = true
	} else {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return a
}

// Stop ends the holder and the sandbox's init, and with it every process of
// the sandbox; the namespaces, their mounts and the cgroup go with them.
func (r *Root) Stop() {
	if r.holder == nil {
		r.cgroup.Remove()
		return
	}
	_ = r.stdin.Close()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		_ = r.holder.Process.Kill()
		<-r.done
	}
	if r.init != 0 && SameProcess(r.init, r.initStart) {
		KillPID(r.init, SigKill) // a no-op unless init is stuck: its stdin is closed
	}
	r.cgroup.Remove()
}

// HolderPID is the holder's pid: its root is the host's, and the sandbox's
// root is mounted at Merged in its mount namespace.
func (r *Root) HolderPID() int {
	if r == nil || r.holder == nil || r.holder.Process == nil {
		return 0
	}
	return r.holder.Process.Pid
}

// InitPID is the host pid of the sandbox's init: PID 1 of the sandbox's PID
// namespace, in the mount namespace its commands run in.
func (r *Root) InitPID() int {
	if r == nil {
		return 0
	}
	return r.init
}

// nsenterArgs enter the namespaces of pid: mount, user where there is one,
// and PID with pidns.
func (r *Root) nsenterArgs(pid int, pidns bool) []string {
	ns := []string{"--target", strconv.Itoa(pid), "--mount"}
	if pidns {
		ns = append(ns, "--pid")
	}
	if r.Tools.Userns {
		ns = append(ns, "--user", "--preserve-credentials")
	}
	return append(ns, "--")
}

// cgroupWrapper is a host shell that joins the cgroup (writing its pid to
// each file before "--") and then execs the rest: a command is in the
// sandbox's cgroup before it can fork.
const cgroupWrapper = `while [ "$1" != -- ]; do echo $$ >"$1" || exit 125; shift; done; shift; exec "$@"`

// Command runs name in the root, in cwd (a path inside the root), in the
// sandbox's namespaces and cgroup, as id (nil: root). The shell writes a
// byte to fd 3 and closes it as it execs the command (ExecSync): nsenter,
// which forks to enter the PID namespace, keeps its own copy open.
//
// nsenter switches to id's user and group once inside the namespaces, so
// the shell's cd and the command meet the kernel's permission checks as
// that user; it drops every supplementary group as it does (util-linux
// nsenter has no option to set them). Without a user namespace the
// capability dropper (capdrop_linux.go) comes between, as root, and
// switches users itself, the same way.
func (r *Root) Command(cwd, name string, args []string, id *Identity) *exec.Cmd {
	var ids []string
	if id != nil && !id.Root() {
		ids = []string{strconv.FormatUint(uint64(id.UID), 10), strconv.FormatUint(uint64(id.GID), 10)}
	}
	full := []string{r.Tools.nsenter}
	if r.Tools.capDrop != nil {
		// nsenter runs the dropper from the host's root, in the init's cwd: the sandbox's root.
		full = append(full, "--target", strconv.Itoa(r.InitPID()), "--mount", "--pid", "--root=/", "--wd", "--",
			"/proc/self/fd/"+strconv.Itoa(capDropFD), capDropMarker, "--chroot")
		if ids != nil {
			full = append(full, "--uid", ids[0], "--gid", ids[1])
		}
		full = append(full, "--")
	} else {
		if ids != nil {
			full = append(full, "--setuid", ids[0], "--setgid", ids[1])
		}
		full = append(full, r.nsenterArgs(r.InitPID(), true)...)
	}
	full = append(full, "/bin/sh", "-c", `cd "$1" || exit 1; shift; { printf x >&3; } 2>/dev/null; exec 3>&- "$@"`, "sh", cwd, name)
	full = append(full, args...)
	if files := r.cgroup.ProcsFiles(); len(files) > 0 {
		full = append(append(append([]string{r.Tools.sh, "-c", cgroupWrapper, "sh"}, files...), "--"), full...)
	}
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.Tools.capDrop != nil {
		attachCapDrop(cmd, r.Tools.capDrop)
	}
	return cmd
}

// SetEnv gives a Command its environment (SetCommandEnv).
func (r *Root) SetEnv(cmd *exec.Cmd, env []string) { SetCommandEnv(cmd, env) }

// commandShell starts the command line of Command's shell until it execs.
const commandShell = "/bin/sh\x00-c\x00cd \"$1\""

// CommandPID is the host pid of the command a Command started as launcher
// (nsenter, which forks it into the PID namespace), once it has exec'd;
// launcher itself if it cannot be found.
func (r *Root) CommandPID(launcher int) int {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		child := ChildPID(launcher)
		if child == 0 {
			return launcher // the command has already ended
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "cmdline"))
		if err != nil || !strings.HasPrefix(string(cmdline), commandShell) {
			return child
		}
	}
	return launcher
}

// HostCommand runs a host program in the holder's mount namespace (not in
// the root), for mounts the emulator adds later under Merged; they reach
// the sandbox's own namespace.
func (r *Root) HostCommand(name string, args ...string) *exec.Cmd {
	return exec.Command(r.Tools.nsenter, append(append(r.nsenterArgs(r.HolderPID(), false), name), args...)...)
}

// ShowLine makes target, a file in the sandbox's own mount namespace
// (where the host's files are out of reach: a bind mount cannot come from
// another namespace), read line: a file of that name under the sandbox's
// /dev (a tmpfs of its own) holds it and is bound over target.
//
// Without a user namespace the emulator's executable does it (showLineMain):
// the sandbox's programs would run with capabilities that count on the host.
func (r *Root) ShowLine(line, target string) error {
	file := "/dev/.e2b-" + filepath.Base(target)
	args := append(r.nsenterArgs(r.InitPID(), true), "/bin/sh", "-c",
		`read -r line; printf '%s\n' "$line" >"$2" && umount "$1" 2>/dev/null; mount --bind "$2" "$1"`, "sh", target, file)
	if r.Tools.capDrop != nil {
		args = []string{"--target", strconv.Itoa(r.InitPID()), "--mount", "--root=/", "--wd", "--",
			"/proc/self/fd/" + strconv.Itoa(capDropFD), showLineMarker, target, file}
	}
	cmd := exec.Command(r.Tools.nsenter, args...)
	if r.Tools.capDrop != nil {
		attachCapDrop(cmd, r.Tools.capDrop)
	}
	cmd.Stdin = strings.NewReader(line + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// CopyLayer copies an overlay upper directory: files, directories,
// symlinks, whiteouts (0/0 character devices) and the opaque-directory
// marker, keeping modes and (as root) owners.
func CopyLayer(src, dst string, userns bool) error {
	opaque := "trusted.overlay.opaque"
	if userns {
		opaque = "user.overlay.opaque"
	}
	type dirMode struct {
		path string
		mode os.FileMode
	}
	var dirs []dirMode // applied last: a read-only directory must still take its children
	err := hostfs.WalkInto(src, dst, func(p, rel, target string, info os.FileInfo) error {
		st, _ := info.Sys().(*syscall.Stat_t)
		switch m := info.Mode(); {
		case m.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
			buf := make([]byte, 8)
			if n, err := syscall.Getxattr(p, opaque, buf); err == nil && n > 0 {
				_ = syscall.Setxattr(target, opaque, buf[:n], 0)
			}
			hostfs.CopyXattrs(p, target) // file metadata (user.*)
		case m&os.ModeSymlink != 0:
			if err := hostfs.CopySymlink(p, target); err != nil {
				return err
			}
		case m&os.ModeCharDevice != 0 && st != nil && st.Rdev == 0:
			if err := syscall.Mknod(target, syscall.S_IFCHR, 0); err != nil {
				return fmt.Errorf("copy whiteout %s: %w", rel, err)
			}
		case m.IsRegular():
			if err := hostfs.CopyFile(p, target, m.Perm()); err != nil {
				return err
			}
			hostfs.CopyXattrs(p, target)
		default:
			return nil // sockets, fifos and devices are not kept
		}
		if st != nil && os.Geteuid() == 0 {
			_ = os.Lchown(target, int(st.Uid), int(st.Gid))
		}
		mode := info.Mode() & (os.ModePerm | os.ModeSticky | os.ModeSetuid | os.ModeSetgid)
		switch {
		case info.IsDir():
			dirs = append(dirs, dirMode{target, mode})
		case info.Mode()&os.ModeSymlink == 0:
			_ = os.Chmod(target, mode)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Chmod(dirs[i].path, dirs[i].mode)
	}
	return err
}

// fuseNode makes, as root, a node of the host's /dev/fuse device with E2B's
// guests' mode, 0666, under dataDir/base/dev (closed to other users of the
// host), which every sandbox's init binds at its /dev/fuse: the host's own
// node keeps its mode. "" where the host has no /dev/fuse or it cannot be made.
func fuseNode(dataDir string) string {
	st, err := os.Stat("/dev/fuse")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 || os.Geteuid() != 0 {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	dir := filepath.Join(dataDir, "base", "dev")
	if err := os.MkdirAll(dir, 0o700); err != nil || os.Chmod(dir, 0o700) != nil {
		return ""
	}
	p := filepath.Join(dir, "fuse")
	_ = os.Remove(p)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(sys.Rdev)); err != nil {
		return ""
	}
	if err := os.Chmod(p, 0o666); err != nil { // the umask must not narrow it
		return ""
	}
	return p
}
