package sandboxos

import (
	"bufio"
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
// mounts). Layers are directories in overlayfs's upper-layer format
// (whiteouts, opaque directories), newest first; under them lies a base
// root. The host base root is a skeleton directory (fresh /home/user, /tmp,
// /root, /run, mount points, the host's top-level symlinks such as
// /bin -> usr/bin, an /etc overlay adding the "user" account) plus, for each
// of the host's /usr, /etc, /opt, /var and /srv, a nested overlay whose
// lowest layer is the host directory itself, read-only (with the skeleton's
// /etc and /usr, which adds the sudo shim, just over it). Writes always land
// in the sandbox's upper directory under DataDir. /proc, /dev and /sys are
// the host's, bind-mounted. Commands enter the namespace with nsenter and
// chroot into the root; the emulator reaches the same files through
// /proc/<holder>/root.

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
	return t, nil
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
	if err := makeFreshDirs(dir); err != nil {
		return err
	}
	if err := WriteSudoShim(dir); err != nil {
		return err
	}
	// Only the mcp-gateway template has the gateway (a layer of its own); a skeleton an older
	// emulator wrote may still hold it.
	_ = os.Remove(filepath.Join(dir, "usr", "local", "bin", MCPGatewayCommand))
	return writeEtcOverrides(filepath.Join(dir, "etc"))
}

func makeFreshDirs(dir string) error {
	for _, name := range []string{"home", "home/user", "root", "tmp", "run", "mnt", "media", "proc", "sys", "dev", "boot"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(p, freshDirs[name]); err != nil {
			return err
		}
	}
	return nil
}

// writeEtcOverrides adds the "user" account (uid 1000 when free) to copies
// of the host's passwd and group, and copies hosts and resolv.conf, which
// container runtimes often bind-mount (overlayfs would not see them).
func writeEtcOverrides(etc string) error {
	if err := os.MkdirAll(etc, 0o755); err != nil {
		return err
	}
	for _, f := range []struct{ name, line string }{
		{"passwd", "user:x:1000:1000:user:/home/user:/bin/bash\n"},
		{"group", "user:x:1000:\n"},
	} {
		data, _ := os.ReadFile("/etc/" + f.name)
		if !hasEntry(string(data), "user") {
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			data = append(data, f.line...)
		}
		if err := os.WriteFile(filepath.Join(etc, f.name), data, 0o644); err != nil {
			return err
		}
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

func hasEntry(table, name string) bool {
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, name+":") {
			return true
		}
	}
	return false
}

// PrepareImageBase writes the skeleton put over an image's root filesystem
// (image): fresh directories, hosts and resolv.conf, and the sudo shim where
// the image's /usr/bin is a plain directory (a skeleton directory would hide
// a link there).
func PrepareImageBase(dir, image string) error {
	if err := makeFreshDirs(dir); err != nil {
		return err
	}
	usr, errUsr := os.Lstat(filepath.Join(image, "usr"))
	bin, errBin := os.Lstat(filepath.Join(image, "usr", "bin"))
	if errUsr == nil && usr.IsDir() && errBin == nil && bin.IsDir() {
		if err := WriteSudoShim(dir); err != nil {
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
	return nil
}

// mountScript is the holder's shell script: mount the root and its nested
// overlays, bind /proc, /dev and /sys, report "ready", then wait on stdin.
func (r *Root) mountScript(dataDir string) (string, error) {
	q := shellQuote
	opt := ""
	if r.Tools.Userns {
		opt = ",userxattr"
	}
	var lines []string
	lines = append(lines, "set -e", "cd "+q(dataDir))
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
	for _, d := range []string{"proc", "dev", "sys"} {
		lines = append(lines, "mkdir -p "+q(filepath.Join(r.Merged, d)), "mount --rbind /"+d+" "+q(filepath.Join(r.Merged, d)))
	}
	lines = append(lines, "echo ready", "exec cat")
	return strings.Join(lines, "\n") + "\n", nil
}

func relTo(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Start mounts the root in a new mount namespace and waits until it is ready.
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
	args := []string{"--mount", "--propagation", "private"}
	if r.Tools.Userns {
		args = append(args, "--user", "--map-root-user")
	}
	args = append(args, "--", r.Tools.sh, "-c", script)
	cmd := exec.Command(r.Tools.unshare, args...)
	// No Pdeathsig (it follows the forking thread, not the process): the
	// holder ends when its stdin, which only the emulator holds, closes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	select {
	case err = <-ready:
	case <-time.After(30 * time.Second):
		err = errors.New("timed out")
	}
	if err != nil {
		r.Stop()
		return fmt.Errorf("mount the sandbox root: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Stop ends the holder; the namespace and its mounts go with it.
func (r *Root) Stop() {
	if r.holder == nil {
		return
	}
	_ = r.stdin.Close()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		_ = r.holder.Process.Kill()
		<-r.done
	}
}

func (r *Root) HolderPID() int {
	if r == nil || r.holder == nil || r.holder.Process == nil {
		return 0
	}
	return r.holder.Process.Pid
}

// Command runs name in the root, in cwd (a path inside the root). The shell
// closes fd 3 as it execs the command (ExecSync).
func (r *Root) Command(cwd, name string, args []string) *exec.Cmd {
	ns := []string{"--target", strconv.Itoa(r.HolderPID()), "--mount"}
	if r.Tools.Userns {
		ns = append(ns, "--user", "--preserve-credentials")
	}
	full := append(ns, "--", r.Tools.chroot, r.Merged, "/bin/sh", "-c", `cd "$1" || exit 1; shift; exec 3>&- "$@"`, "sh", cwd, name)
	cmd := exec.Command(r.Tools.nsenter, append(full, args...)...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// HostCommand runs a host program inside the sandbox's mount namespace
// (not chrooted), for mounts the holder adds later.
func (r *Root) HostCommand(name string, args ...string) *exec.Cmd {
	ns := []string{"--target", strconv.Itoa(r.HolderPID()), "--mount"}
	if r.Tools.Userns {
		ns = append(ns, "--user", "--preserve-credentials")
	}
	return exec.Command(r.Tools.nsenter, append(append(ns, "--", name), args...)...)
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
