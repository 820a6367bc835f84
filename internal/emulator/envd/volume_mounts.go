package envd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// VolumeMount is one volume seen by a sandbox at Path (clean, absolute).
type VolumeMount struct {
	Name, Path string
	Dir        string // the volume's content on the host
}

// mountFor returns the host path of virtual inside a mounted volume.
// sb.mounts is sorted longest path first, so nested mounts win.
func (sb *Machine) mountFor(virtual string) (string, bool) {
	for _, m := range sb.mounts {
		if virtual == m.Path || strings.HasPrefix(virtual, m.Path+"/") {
			return filepath.Join(m.Dir, filepath.FromSlash(strings.TrimPrefix(virtual, m.Path))), true
		}
	}
	return "", false
}

// volumeMountScript is the part of the isolation wrapper that bind-mounts
// each volume, outer mounts first, in the command's mount namespace. It
// runs before /home/user and /tmp are covered (the volumes' directories may
// live under the host's /tmp): a mount inside those trees goes onto the
// mount point in the sandbox's own storage, which the recursive binds of
// home and tmp then carry; any other mount point is created on the host
// (an empty directory, as the namespace shares the host's root).
func volumeMountScript(sb *Machine) string {
	ordered := append([]VolumeMount(nil), sb.mounts...)
	sort.Slice(ordered, func(i, j int) bool { return len(ordered[i].Path) < len(ordered[j].Path) })
	var b strings.Builder
	for _, m := range ordered {
		at := m.Path
		if isPrivatePath(m.Path) {
			at = sb.storagePath(m.Path)
		}
		b.WriteString(" && mkdir -p " + quoteSh(at) + " && mount --bind " + quoteSh(m.Dir) + " " + quoteSh(at))
	}
	return b.String()
}

// linkMounts is the fallback without mount namespaces: each mount point in
// the sandbox's own storage becomes a symlink to the volume, so commands
// that reach it through $HOME or $TMPDIR (or a rewritten cwd) see the
// volume, as they see the sandbox's home there.
func (sb *Machine) linkMounts() error {
	for _, m := range sb.mounts {
		at := sb.storagePath(m.Path)
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return err
		}
		_ = os.RemoveAll(at)
		if err := os.Symlink(m.Dir, at); err != nil {
			return err
		}
	}
	return nil
}

// UnlinkMounts removes the volumes' mount points from a copy of a sandbox
// directory (snapshot or fork): a volume is not part of the sandbox's disk.
func UnlinkMounts(copyDir string, mounts []VolumeMount) {
	probe := &Machine{dir: copyDir}
	for _, m := range mounts {
		at := probe.storagePath(m.Path)
		if fi, err := os.Lstat(at); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			_ = os.Remove(at)
			_ = os.MkdirAll(at, 0o755)
		}
	}
}

// mountVolumes gives a new sandbox its volumes: bound inside its private
// root (rootMountScript), bound by the isolation wrapper per command, or
// linked in the fallback.
func (sb *Machine) mountVolumes() error {
	switch {
	case len(sb.mounts) == 0:
		return nil
	case sb.root != nil:
		return mountInRoot(sb.root, sb.mounts)
	case sb.settings.Isolate:
		return nil
	default:
		return sb.linkMounts()
	}
}

// mountInRoot bind-mounts each volume at its path inside a private root, outer
// mounts first, in the root's mount namespace (the holder's, whose root is the
// host's: only host programs run there). The mount point is made by the
// emulator, its path resolved inside the root: the root's own programs (its
// mkdir, which a template may have replaced) never run with the emulator's
// powers, and no link of the root leads out of it.
func mountInRoot(root *sandboxos.Root, mounts []VolumeMount) error {
	ordered := append([]VolumeMount(nil), mounts...)
	sort.SliceStable(ordered, func(i, j int) bool { return len(ordered[i].Path) < len(ordered[j].Path) })
	seen := "/proc/" + strconv.Itoa(root.HolderPID()) + "/root" // the holder's view of its namespace
	for _, m := range ordered {
		at := root.Path(m.Path, true)
		if err := os.MkdirAll(at, 0o755); err != nil {
			return fmt.Errorf("mount volumes: %w", err)
		}
		out, err := root.HostCommand("mount", "--bind", m.Dir, strings.TrimPrefix(at, seen)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("mount volumes: %v: %s", err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// quoteSh quotes s for sh.
func quoteSh(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sortMounts orders mounts longest path first, so that nested mounts win.
func sortMounts(ms []VolumeMount) []VolumeMount {
	out := append([]VolumeMount(nil), ms...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Path) > len(out[j].Path) })
	return out
}
