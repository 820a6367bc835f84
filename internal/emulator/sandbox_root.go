package emulator

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// setupRootfs prepares private roots and proves them with a probe mount;
// when that cannot work the emulator keeps the older layout and says why.
func (s *Server) setupRootfs() {
	if s.opts.Isolation == "none" || runtime.GOOS != "linux" {
		return
	}
	rf, err := sandboxos.SetupRootfs(s.dataDir, os.Geteuid() != 0 || s.opts.Isolation == "userns")
	if err != nil {
		s.logf("emulator: private root filesystems unavailable (%v); sandboxes share the host's root outside /home/user and /tmp", err)
		return
	}
	s.rootfs = rf
}

// mountRoot gives a new sandbox its root over the build's layers.
func (s *Server) mountRoot(sb *sandbox, b state.Build) error {
	base := s.rootfs.HostBase()
	if b.Base != "" {
		var err error
		if base, err = s.imageBase(b.Base); err != nil {
			return err
		}
	}
	sb.root = s.rootfs.NewRoot(base, b.Layers, sb.dir)
	if err := sb.root.Start(s.dataDir); err != nil {
		sb.root = nil
		return err
	}
	return nil
}

// captureLayer copies a sandbox's own layer into a new immutable layer and
// returns the layers a sandbox started from it sees.
func (s *Server) captureLayer(sb *sandbox) ([]string, error) {
	return s.rootfs.CaptureLayer(sb.root, filepath.Join(s.dataDir, "layers", "s"+newID("", 15)))
}

// showBootID binds the sandbox's boot ID file over the kernel's in its
// private root (done again at every boot, since boot writes a new file).
// Where the kernel refuses, commands read the host's boot ID.
func (sb *sandbox) showBootID() {
	if sb.root == nil {
		return
	}
	target := filepath.Join(sb.root.Merged, "proc/sys/kernel/random/boot_id")
	// The previous boot's file is deleted, so its bind mount goes first.
	_ = sb.root.HostCommand("sh", "-c", `umount "$2" 2>/dev/null; mount --bind "$1" "$2"`, "sh", sb.bootIDPath(), target).Run()
}
