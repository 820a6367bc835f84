package emulator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// setupUsers decides whether requests can act as the user they name (E2B's
// envd runs each command, and owns each file it writes, as that user). It
// takes root on the host: only root can give a process another user's IDs.
// Where it cannot, one user stays: the one the sandbox's processes really
// are, so a request is never run as root while it asked for user.
//
//   - Not root on the host: user. The processes are the emulator's own,
//     unprivileged, user; root, which would need privileges it lacks, is
//     refused. (In a private root's user namespace that user is uid 0, with
//     no power over the host.) This keeps working what E2B's and the
//     provider's default user needs, and fails loudly what needs root.
//   - Root, in the shared layout with mount namespaces but no setpriv to
//     switch users in its wrapper: root, the processes' real user; user is
//     refused rather than run as root.
func (s *Server) setupUsers(settings *envd.Settings) {
	switch {
	case os.Geteuid() != 0:
		settings.SingleUser = "user"
		settings.SingleUserWhy = fmt.Sprintf("the emulator is not root on the host (euid %d), so every command runs as its own user", os.Geteuid())
	case s.rootfs == nil && !s.isolate:
		// The shared layout without mount namespaces gives commands their sandbox's home
		// under the data directory: user must be able to pass through it.
		if blocked := openPathTo(s.dataDir); blocked != "" {
			settings.SingleUser = "root"
			settings.SingleUserWhy = fmt.Sprintf("the shared layout keeps user's home under the data directory, and other users cannot pass through %s (let them, with chmod o+x, or use isolation auto), so every command runs as root", blocked)
		}
	case s.rootfs == nil && s.isolate:
		p, err := exec.LookPath("setpriv")
		if err != nil {
			settings.SingleUser = "root"
			settings.SingleUserWhy = "the host has no setpriv, with which the shared layout's commands would switch users, so every command runs as root"
			break
		}
		settings.Setpriv = p
	}
	if settings.SingleUser != "" {
		s.logf("emulator: users are not separated: only %s may be named (%s)", settings.SingleUser, settings.SingleUserWhy)
	}
}

// openPathTo lets other users pass through (execute, not read) dataDir,
// which the emulator owns, and returns the first folder above it they
// cannot pass through ("" when there is none).
func openPathTo(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return dataDir
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return d
		}
		if st.Mode().Perm()&0o001 == 0 {
			if d != abs || os.Chmod(d, st.Mode().Perm()|0o001) != nil {
				return d
			}
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
