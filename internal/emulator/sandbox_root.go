package emulator

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
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

// mountRoot starts a new sandbox's root over the build's layers in dir.
func (s *Server) mountRoot(b state.Build, dir string) (*sandboxos.Root, error) {
	base := s.rootfs.HostBase()
	if b.Base != "" {
		var err error
		if base, err = s.imageBase(b.Base); err != nil {
			return nil, err
		}
	}
	root := s.rootfs.NewRoot(base, b.Layers, dir)
	if err := root.Start(s.dataDir); err != nil {
		return nil, err
	}
	return root, nil
}

// captureLayer copies a sandbox's own layer into a new immutable layer and
// returns the layers a sandbox started from it sees.
func (s *Server) captureLayer(sb *envd.Machine) ([]string, error) {
	return s.rootfs.CaptureLayer(sb.Root(), filepath.Join(s.dataDir, "layers", "s"+ids.New("", 15)))
}
