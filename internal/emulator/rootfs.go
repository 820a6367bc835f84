package emulator

import (
	"os"
	"runtime"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
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
