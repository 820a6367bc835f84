package envd

import (
	"os"
	"path"
)

// Every sandbox knows who it is the way envd tells its processes: the
// variables E2B_SANDBOX=true, E2B_SANDBOX_ID, E2B_TEMPLATE_ID and
// E2B_TEAM_ID, and the same values in files under /run/e2b, written at
// every boot (envd writes them when it starts). Commands read the files
// only where sandboxes have private roots; in the shared layout they are
// reachable through the files API alone.

const runInfoDir = "/run/e2b"

// identityEnv is what envd adds to every process's environment.
func (sb *Machine) identityEnv() map[string]string {
	return map[string]string{
		"E2B_SANDBOX":     "true",
		"E2B_SANDBOX_ID":  sb.id,
		"E2B_TEMPLATE_ID": sb.templateID,
		"E2B_TEAM_ID":     sb.teamID,
	}
}

// writeRunInfo writes /run/e2b/.<NAME> for each identity variable.
func (sb *Machine) writeRunInfo() error {
	dir := sb.hostPath(runInfoDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, value := range sb.identityEnv() {
		p := sb.hostPath(path.Join(runInfoDir, "."+name))
		if err := os.WriteFile(p, []byte(value), 0o666); err != nil {
			return err
		}
		if err := os.Chmod(p, 0o666); err != nil { // the umask must not narrow it
			return err
		}
	}
	return nil
}
