package sandboxos

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// HostGaps lists, one line each, what this host cannot give a sandbox
// (a private root, user namespaces, cgroup limits), from cheap checks:
// the emulator's start-up, which tries each for real, logs the same gaps
// with the kernel's reason.
func HostGaps() []string {
	var gaps []string
	if !hostHasPython3() {
		gaps = append(gaps, "no python3 in /usr/bin or /usr/local/bin: the base template has neither python nor python3 (E2B's has both)")
	}
	if data, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(data)) == "0" {
		gaps = append(gaps, "no user namespaces (user.max_user_namespaces is 0): a sandbox's root is the host's root, with a container's capabilities only (no mount, module, ptrace, raw I/O, device node, clock or network administration)")
	}
	if os.Geteuid() != 0 {
		gaps = append(gaps, "not root: no sandbox cgroups, so sandboxes have no memory, process or CPU limit of their own",
			notRootUsers)
		return gaps
	}
	if !cgroupsWritable() {
		gaps = append(gaps, "no writable cgroup v2 or v1 memory and pids controllers: sandboxes have no memory, process or CPU limit of their own")
	}
	return gaps
}

func cgroupsWritable() bool {
	if data, err := os.ReadFile(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		f := strings.Fields(string(data))
		return slices.Contains(f, "memory") && slices.Contains(f, "pids") && syscall.Access(cgroupRoot, 2) == nil
	}
	for _, ctrl := range []string{"memory", "pids"} {
		if syscall.Access(filepath.Join(cgroupRoot, ctrl), 2) != nil {
			return false
		}
	}
	return true
}
