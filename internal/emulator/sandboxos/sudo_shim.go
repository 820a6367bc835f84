package sandboxos

import (
	"debug/elf"
	_ "embed" // the shim script
	"os"
	"path/filepath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
)

// sudoShim is /usr/bin/sudo where the emulator cannot give sandboxes a
// real one (WriteSudo): it takes sudo's options and sets the environment
// sudo would for the target user (reset unless -E or --preserve-env, HOME,
// USER, LOGNAME, SHELL, SUDO_*, VAR=value words, -i and -s shells), then
// runs the command as its caller: it cannot switch users, so `id -u` and
// file ownership do not change. It keeps the egress proxy variables, since
// on E2B egress belongs to the network, not to the environment. It needs
// bash in the root.
//
//go:embed sudo_shim.sh
var sudoShim []byte

// WriteSudo puts sudo at usr/bin/sudo under dir (a base skeleton, under
// every sandbox's layers, so a template step that installs its own sudo
// replaces it). E2B's base template lets its default user run commands
// with sudo (E2B's SDK tests do, e.g. `sudo echo "$FOO"`), and hosts and
// images often have no sudo. As root, sudo is a copy of the emulator's own
// executable, set-user-ID root (it is sudo under that name: sudo_linux.go),
// which really becomes root or the user -u names; it lies in the data
// directory alone. Where that cannot be (not root, no executable to copy,
// or an image root that may lack the loader a dynamically linked
// executable needs: hostLibs false), the shim.
func WriteSudo(dir string, hostLibs bool) error {
	bin := filepath.Join(dir, "usr", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	p := filepath.Join(bin, "sudo")
	if exe := sudoExecutable(hostLibs); exe != "" {
		tmp := p + ".new"
		if err := hostfs.CopyFile(exe, tmp, 0o700); err == nil {
			if err := os.Lchown(tmp, 0, 0); err == nil {
				if err := os.Chmod(tmp, 0o755|os.ModeSetuid); err == nil {
					return os.Rename(tmp, p)
				}
			}
		}
		_ = os.Remove(tmp)
	}
	_ = os.Remove(p) // a set-user-ID copy an earlier emulator left
	if err := os.WriteFile(p, sudoShim, 0o755); err != nil {
		return err
	}
	return os.Chmod(p, 0o755) // the umask must not narrow it
}

// sudoExecutable is the emulator's executable when it can be the sandboxes'
// sudo: as root, and (unless the root has the host's libraries) statically
// linked; "" otherwise.
func sudoExecutable(hostLibs bool) string {
	if os.Geteuid() != 0 {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if hostLibs {
		return exe
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return ""
		}
	}
	return exe
}
