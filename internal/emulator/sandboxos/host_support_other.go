//go:build !linux

package sandboxos

import "os"

// HostGaps lists what this host cannot give a sandbox: off Linux, every
// sandbox shares the host's files, processes and resources.
func HostGaps() []string {
	gaps := []string{"not Linux: sandboxes get no private root, namespaces or cgroup limits; their commands run as host processes in the sandbox's directory"}
	if os.Geteuid() != 0 {
		gaps = append(gaps, notRootUsers)
	}
	return gaps
}
