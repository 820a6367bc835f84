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
	rf, err := sandboxos.SetupRootfs(s.dataDir, os.Geteuid() != 0 || s.opts.Isolation == "userns", s.opts.WithoutUserns)
	if err != nil {
		s.logf("emulator: private root filesystems unavailable (%v); sandboxes share the host's root outside /home/user and /tmp, and see its /proc and processes", err)
		return
	}
	if !rf.Tools.Userns {
		s.logf("emulator: user namespaces unavailable; a sandbox's root is the host's root, with a container's capabilities only (no mount, module, ptrace, raw I/O, device node, clock or network administration)")
	}
	if cg, err := sandboxos.SetupCgroups(s.dataDir); err != nil {
		s.logf("emulator: sandbox cgroups unavailable (%v); sandboxes have no memory, process or CPU limit of their own", err)
	} else {
		if n := cg.Sweep(); n > 0 {
			s.logf("emulator: ended %d processes a previous emulator on this data directory left", n)
		}
		rf.Cgroups = cg
	}
	s.rootfs = rf
}
