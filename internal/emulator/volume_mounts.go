package emulator

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// volumeMountJSON is E2B's SandboxVolumeMount.
type volumeMountJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// volumeMount is one volume seen by a sandbox at Path (clean, absolute).
type volumeMount struct {
	Name, Path string
	dir        string // the volume's content on the host
}

func mountsJSON(ms []volumeMount) []volumeMountJSON {
	out := make([]volumeMountJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, volumeMountJSON{Name: m.Name, Path: m.Path})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// mountFor returns the host path of virtual inside a mounted volume.
// sb.mounts is sorted longest path first, so nested mounts win.
func (sb *sandbox) mountFor(virtual string) (string, bool) {
	for _, m := range sb.mounts {
		if virtual == m.Path || strings.HasPrefix(virtual, m.Path+"/") {
			return filepath.Join(m.dir, filepath.FromSlash(strings.TrimPrefix(virtual, m.Path))), true
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
func volumeMountScript(sb *sandbox) string {
	ordered := append([]volumeMount(nil), sb.mounts...)
	sort.Slice(ordered, func(i, j int) bool { return len(ordered[i].Path) < len(ordered[j].Path) })
	var b strings.Builder
	for _, m := range ordered {
		at := m.Path
		if isPrivatePath(m.Path) {
			at = sb.storagePath(m.Path)
		}
		b.WriteString(" && mkdir -p " + quoteSh(at) + " && mount --bind " + quoteSh(m.dir) + " " + quoteSh(at))
	}
	return b.String()
}

// linkMounts is the fallback without mount namespaces: each mount point in
// the sandbox's own storage becomes a symlink to the volume, so commands
// that reach it through $HOME or $TMPDIR (or a rewritten cwd) see the
// volume, as they see the sandbox's home there.
func (sb *sandbox) linkMounts() error {
	for _, m := range sb.mounts {
		at := sb.storagePath(m.Path)
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return err
		}
		_ = os.RemoveAll(at)
		if err := os.Symlink(m.dir, at); err != nil {
			return err
		}
	}
	return nil
}

// unlinkMounts removes the volumes' mount points from a copy of a sandbox
// directory (snapshot or fork): a volume is not part of the sandbox's disk.
func unlinkMounts(copyDir string, mounts []volumeMount) {
	probe := &sandbox{dir: copyDir}
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
func (s *Server) mountVolumes(sb *sandbox, mounts []volumeMount) error {
	sb.mounts = mounts
	switch {
	case len(mounts) == 0:
		return nil
	case sb.root != nil:
		out, err := sb.root.HostCommand("/bin/sh", "-c", rootMountScript(sb.root.Merged, mounts)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("mount volumes: %v: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	case s.isolate:
		return nil
	default:
		return sb.linkMounts()
	}
}

// rootMountScript bind-mounts each volume at its path inside a private root
// (merged), outer mounts first, in the root's mount namespace; a mount point
// is made with the root's mkdir so that it exists inside the root, even
// where the path crosses the root's own symlinks.
func rootMountScript(merged string, mounts []volumeMount) string {
	ordered := append([]volumeMount(nil), mounts...)
	sort.Slice(ordered, func(i, j int) bool { return len(ordered[i].Path) < len(ordered[j].Path) })
	lines := []string{"set -e"}
	for _, m := range ordered {
		at := quoteSh(merged + m.Path)
		lines = append(lines, "chroot "+quoteSh(merged)+" mkdir -p "+quoteSh(m.Path), "mount --bind "+quoteSh(m.dir)+" "+at)
	}
	return strings.Join(lines, "\n")
}

// quoteSh quotes s for sh.
func quoteSh(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
