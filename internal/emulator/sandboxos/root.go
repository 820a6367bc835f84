package sandboxos

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tools are the host programs the holder and commands need.
type Tools struct {
	unshare, nsenter, chroot, sh string
	init                         string // the shell the sandbox's init runs: bash where there is one
	umount                       string // shell command: the host's umount, from the sandbox's init after pivot_root
	fuse                         string // a 0666 node of the host's /dev/fuse, bound at the sandbox's; "" for none
	Userns                       bool   // a user namespace maps the emulator's user to root
	// capDrop is the emulator's executable, through which commands drop the capabilities that
	// count on the host where there is no user namespace (capdrop_linux.go); nil otherwise.
	capDrop *os.File
}

// BaseRoot is the bottom of a sandbox's root: the host's or an image's.
type BaseRoot struct {
	key      string // "" for the host, else the image's store path
	skeleton string // the emulator's directory over it
	image    string // the image's root filesystem; "" for the host
}

// Rootfs is the server's private-root support; nil means the fallback.
type Rootfs struct {
	Tools   *Tools
	Cgroups *Cgroups // nil: sandboxes have no cgroup of their own
	host    *BaseRoot
	mu      sync.Mutex
	images  map[string]*BaseRoot
}

// Root is one sandbox's mounted root.
type Root struct {
	Tools               *Tools
	base                *BaseRoot
	Layers              []string // lower layers, newest first
	Upper, work, Merged string
	Limits              Limits // the cgroup's, set before Start
	cgroups             *Cgroups
	cgroup              *Cgroup
	holder              *exec.Cmd
	init                int    // host pid of the sandbox's PID 1
	initStart           uint64 // and its start time: with the pid, its identity
	stdin               io.WriteCloser
	done                chan struct{}
}

// CPUTime is the CPU time the sandbox's processes have used, read from its cgroup; ok is
// false without one (a nil root, a host without cgroups, a stopped root).
func (r *Root) CPUTime() (time.Duration, bool) {
	if r == nil {
		return 0, false
	}
	return r.cgroup.CPUTime()
}

// SetupRootfs prepares private roots over the host's base root under
// dataDir/base/host and proves them with a probe mount, in a user
// namespace first; as root and unless needUserns, without one where the
// host refuses user namespaces (Tools.Userns tells which). withoutUserns
// (tests of hosts that refuse them) goes straight to the latter.
func SetupRootfs(dataDir string, needUserns, withoutUserns bool) (*Rootfs, error) {
	if withoutUserns && !needUserns {
		return setupRootfs(dataDir, false)
	}
	rf, err := setupRootfs(dataDir, true)
	if err != nil && !needUserns && os.Geteuid() == 0 {
		if rf, err2 := setupRootfs(dataDir, false); err2 == nil {
			return rf, nil
		}
	}
	return rf, err
}

func setupRootfs(dataDir string, userns bool) (*Rootfs, error) {
	tools, err := FindRootfsTools(userns)
	if err != nil {
		return nil, err
	}
	tools.fuse = fuseNode(dataDir)
	// Only root may enter the base roots: they hold the set-user-ID sudo (WriteSudo) and the
	// sandboxes' /dev/fuse node.
	if err := os.MkdirAll(filepath.Join(dataDir, "base"), 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(filepath.Join(dataDir, "base"), 0o700); err != nil {
		return nil, err
	}
	host := &BaseRoot{skeleton: filepath.Join(dataDir, "base", "host")}
	if err := PrepareHostBase(host.skeleton); err != nil {
		return nil, fmt.Errorf("base root: %w", err)
	}
	rf := &Rootfs{Tools: tools, host: host, images: map[string]*BaseRoot{}}
	dir, err := os.MkdirTemp(filepath.Join(dataDir, "sandboxes"), "probe-")
	if err != nil {
		return nil, err
	}
	defer RemoveTree(dir)
	r := rf.NewRoot(rf.host, nil, dir)
	if err := r.Start(dataDir); err != nil {
		return nil, err
	}
	defer r.Stop()
	out, err := r.Command("/", "/bin/sh", []string{"-c", "echo ok"}, nil).CombinedOutput()
	if err != nil || string(out) != "ok\n" {
		return nil, fmt.Errorf("probe command: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return rf, nil
}

// HostBase is the base root over the host's own files.
func (rf *Rootfs) HostBase() *BaseRoot { return rf.host }

// ImageBase registers (once) the base root over an image's root
// filesystem image, its skeleton at skel.
func (rf *Rootfs) ImageBase(image, skel string) (*BaseRoot, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if b := rf.images[image]; b != nil {
		return b, nil
	}
	if err := PrepareImageBase(skel, image); err != nil {
		return nil, err
	}
	b := &BaseRoot{key: image, skeleton: skel, image: image}
	rf.images[image] = b
	return b, nil
}

// CaptureLayer copies r's own layer into the new immutable layer dir and
// returns the layers a root started from it sees.
func (rf *Rootfs) CaptureLayer(r *Root, dir string) ([]string, error) {
	if err := CopyLayer(r.Upper, dir, rf.Tools.Userns); err != nil {
		RemoveTree(dir)
		return nil, err
	}
	return append([]string{dir}, r.Layers...), nil
}

// NewRoot describes a root over base and layers (newest first) whose own
// layer, work and mount directories live under dir; Start mounts it.
func (rf *Rootfs) NewRoot(base *BaseRoot, layers []string, dir string) *Root {
	return &Root{
		Tools: rf.Tools, base: base, Layers: append([]string(nil), layers...), cgroups: rf.Cgroups,
		Upper: filepath.Join(dir, "upper"), work: filepath.Join(dir, "work"), Merged: filepath.Join(dir, "merged"),
	}
}

// Path maps a clean absolute sandbox path into the mounted root, as the
// emulator reaches it: parent symlinks are resolved inside the root (an
// absolute link must not lead to the host's files), and so is the last
// component when follow is set.
func (r *Root) Path(virtual string, follow bool) string {
	prefix := "/proc/" + strconv.Itoa(r.HolderPID()) + "/root" + r.Merged
	return prefix + ResolveInRoot(prefix, virtual, follow)
}

// ResolveInRoot resolves symlinks in virtual as if root were "/".
func ResolveInRoot(root, virtual string, follow bool) string {
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

// RemoveTree removes dir even where overlayfs left directories without
// permissions (its work directory).
func RemoveTree(dir string) {
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

// CloseAll closes files, ignoring errors.
func CloseAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
