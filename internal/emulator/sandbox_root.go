package emulator

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// rootfsTools are the host programs the holder and commands need.
type rootfsTools struct {
	unshare, nsenter, chroot, sh string
	userns                       bool // a user namespace maps the emulator's user to root
}

// baseRoot is the bottom of a sandbox's root: the host's or an image's.
type baseRoot struct {
	key      string // "" for the host, else the image's store path
	skeleton string // the emulator's directory over it
	image    string // the image's root filesystem; "" for the host
}

// rootfs is the server's private-root support; nil means the fallback.
type rootfs struct {
	tools  *rootfsTools
	host   *baseRoot
	mu     sync.Mutex
	images map[string]*baseRoot
}

// sandboxRoot is one sandbox's mounted root.
type sandboxRoot struct {
	tools               *rootfsTools
	base                *baseRoot
	layers              []string // lower layers, newest first
	upper, work, merged string
	holder              *exec.Cmd
	stdin               io.WriteCloser
	done                chan struct{}
}

// setupRootfs prepares private roots and proves them with a probe mount;
// when that cannot work the emulator keeps the older layout and says why.
func (s *Server) setupRootfs() {
	if s.opts.Isolation == "none" || runtime.GOOS != "linux" {
		return
	}
	userns := os.Geteuid() != 0 || s.opts.Isolation == "userns"
	err := func() error {
		tools, err := findRootfsTools(userns)
		if err != nil {
			return err
		}
		host := &baseRoot{skeleton: filepath.Join(s.dataDir, "base", "host")}
		if err := prepareHostBase(host.skeleton); err != nil {
			return fmt.Errorf("base root: %w", err)
		}
		rf := &rootfs{tools: tools, host: host, images: map[string]*baseRoot{}}
		dir, err := os.MkdirTemp(filepath.Join(s.dataDir, "sandboxes"), "probe-")
		if err != nil {
			return err
		}
		defer removeTree(dir)
		r := rf.newRoot(host, nil, dir)
		if err := r.start(s.dataDir); err != nil {
			return err
		}
		defer r.stop()
		out, err := r.command("/", "/bin/sh", []string{"-c", "echo ok"}).CombinedOutput()
		if err != nil || string(out) != "ok\n" {
			return fmt.Errorf("probe command: %v: %s", err, strings.TrimSpace(string(out)))
		}
		s.rootfs = rf
		return nil
	}()
	if err != nil {
		s.logf("emulator: private root filesystems unavailable (%v); sandboxes share the host's root outside /home/user and /tmp", err)
	}
}

func (rf *rootfs) newRoot(base *baseRoot, layers []string, dir string) *sandboxRoot {
	return &sandboxRoot{
		tools: rf.tools, base: base, layers: append([]string(nil), layers...),
		upper: filepath.Join(dir, "upper"), work: filepath.Join(dir, "work"), merged: filepath.Join(dir, "merged"),
	}
}

// mountRoot gives a new sandbox its root over the build's layers.
func (s *Server) mountRoot(sb *sandbox, b *templateBuild) error {
	base := s.rootfs.host
	if b.base != "" {
		var err error
		if base, err = s.imageBase(b.base); err != nil {
			return err
		}
	}
	sb.root = s.rootfs.newRoot(base, b.layers, sb.dir)
	if err := sb.root.start(s.dataDir); err != nil {
		sb.root = nil
		return err
	}
	return nil
}

// rootPath maps a clean absolute sandbox path into the mounted root, as the
// emulator reaches it: parent symlinks are resolved inside the root (an
// absolute link must not lead to the host's files), and so is the last
// component when follow is set.
func (r *sandboxRoot) rootPath(virtual string, follow bool) string {
	prefix := "/proc/" + strconv.Itoa(r.holderPID()) + "/root" + r.merged
	return prefix + resolveInRoot(prefix, virtual, follow)
}

// resolveInRoot resolves symlinks in virtual as if root were "/".
func resolveInRoot(root, virtual string, follow bool) string {
	todo := strings.Split(strings.TrimPrefix(path.Clean("/"+virtual), "/"), "/")
	resolved := "/"
	for links := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		if len(todo) == 0 && !follow {
			return next
		}
		st, err := os.Lstat(root + next)
		if err != nil || st.Mode()&os.ModeSymlink == 0 || links >= 40 {
			resolved = next
			continue
		}
		link, err := os.Readlink(root + next)
		if err != nil {
			resolved = next
			continue
		}
		links++
		if strings.HasPrefix(link, "/") {
			resolved = "/"
		}
		todo = append(strings.Split(link, "/"), todo...)
	}
	return resolved
}

// captureLayer copies a sandbox's own layer into a new immutable layer and
// returns the layers a sandbox started from it sees.
func (s *Server) captureLayer(sb *sandbox) ([]string, error) {
	dir := filepath.Join(s.dataDir, "layers", "s"+newID("", 15))
	if err := copyLayer(sb.root.upper, dir, s.rootfs.tools.userns); err != nil {
		removeTree(dir)
		return nil, err
	}
	return append([]string{dir}, sb.root.layers...), nil
}

// removeTree removes dir even where overlayfs left directories without
// permissions (its work directory).
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// showBootID binds the sandbox's boot ID file over the kernel's in its
// private root (done again at every boot, since boot writes a new file).
// Where the kernel refuses, commands read the host's boot ID.
func (sb *sandbox) showBootID() {
	if sb.root == nil {
		return
	}
	target := filepath.Join(sb.root.merged, "proc/sys/kernel/random/boot_id")
	// The previous boot's file is deleted, so its bind mount goes first.
	_ = sb.root.hostCommand("sh", "-c", `umount "$2" 2>/dev/null; mount --bind "$1" "$2"`, "sh", sb.bootIDPath(), target).Run()
}
