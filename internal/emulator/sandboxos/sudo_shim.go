package sandboxos

import (
	_ "embed" // the shim script
	"os"
	"path/filepath"
)

// sudoShim is /usr/bin/sudo in every sandbox with a private root: E2B's
// base template lets its default user run commands with sudo (E2B's SDK
// tests do, e.g. `sudo echo "$FOO"`), and hosts and images often have no
// sudo, or one that would really switch users under the emulator. The shim
// takes sudo's options and sets the environment sudo would for the target
// user (reset unless -E or --preserve-env, HOME, USER, LOGNAME, SHELL,
// SUDO_*, VAR=value words, -i and -s shells), then runs the command, still
// as the emulator's user: it cannot switch users, so `id -u` and file
// ownership do not change. It keeps the egress proxy variables, since on
// E2B egress belongs to the network, not to the environment. It lies in
// the skeleton under every sandbox's layers, so a template step that
// installs a real sudo replaces it, and it needs bash in the root.
//
//go:embed sudo_shim.sh
var sudoShim []byte

// WriteSudoShim puts the shim at usr/bin/sudo under dir (a base skeleton).
func WriteSudoShim(dir string) error {
	bin := filepath.Join(dir, "usr", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	p := filepath.Join(bin, "sudo")
	if err := os.WriteFile(p, sudoShim, 0o755); err != nil {
		return err
	}
	return os.Chmod(p, 0o755) // the umask must not narrow it
}
