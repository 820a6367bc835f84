//go:build !linux

package sandboxos

import "os/exec"

// DropCaps drops nothing off Linux, where sandboxes have no namespaces.
func DropCaps(*exec.Cmd, int, *Identity, ...string) (bool, error) { return false, nil }

// SetCommandEnv gives cmd its environment.
func SetCommandEnv(cmd *exec.Cmd, env []string) { cmd.Env = env }
