package envd

import (
	"runtime"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// ListensOn reports whether one of the sandbox's own processes listens on the TCP port. Sandboxes
// share the host's network, so a port of the host or of another sandbox is not this sandbox's
// port: E2B's proxy would find it closed, and the sandbox URL must not lead to it. Outside
// Linux the emulator cannot tell whose a socket is and answers true.
func (sb *Machine) ListensOn(port uint16) bool {
	if runtime.GOOS != "linux" {
		return true
	}
	inodes := sandboxos.ListeningSockets(port)
	if len(inodes) == 0 {
		return false
	}
	for _, p := range sb.procs.membersIn(sandboxos.ScanProcs(sb.settings.Isolate)) {
		if sandboxos.HoldsSocket(p.PID, inodes) {
			return true
		}
	}
	return false
}
