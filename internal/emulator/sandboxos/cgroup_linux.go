package sandboxos

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A sandbox's processes share a cgroup of their own, under one cgroup per
// data directory named e2b-emulator-<hash of the data directory>: its memory
// and process (pids) limits keep a memory hog or a fork bomb inside the
// sandbox, and its CPU quota follows the template's cpuCount. cgroup v2 (one
// hierarchy) and v1 (a hierarchy per controller: memory and pids needed, cpu
// and cpuacct, which counts the sandbox's CPU time for its metrics, where
// mounted) are both supported. The per-directory name lets an emulator
// started again on the same data directory find and end what a killed one
// left (Sweep).

// cgroupRoot is where the host's cgroup filesystems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroupPrefix starts the name of every emulator's parent cgroup.
const cgroupPrefix = "e2b-emulator-"

// Cgroups is the emulator's parent cgroup: one directory (v2) or one per
// controller (v1).
type Cgroups struct {
	parents []string
	v2      bool
}

// Cgroup is one sandbox's cgroup.
type Cgroup struct {
	dirs []string
	v2   bool
}

// SetupCgroups makes (or finds) the parent cgroup of dataDir's sandboxes.
func SetupCgroups(dataDir string) (*Cgroups, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	name := cgroupPrefix + hex.EncodeToString(sum[:6])
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return setupCgroupsV2(name)
	}
	var parents []string
	seen := map[string]bool{}
	for _, ctrl := range []string{"memory", "pids", "cpu", "cpuacct"} {
		top := filepath.Join(cgroupRoot, ctrl)
		if _, err := os.Stat(filepath.Join(top, "cgroup.procs")); err != nil {
			if ctrl == "cpu" || ctrl == "cpuacct" {
				continue // CPU quotas and accounting are a nicety; memory and pids are the guard
			}
			return nil, fmt.Errorf("no cgroup v2 and no cgroup v1 %s controller at %s", ctrl, top)
		}
		if real, err := filepath.EvalSymlinks(top); err == nil {
			if seen[real] {
				continue // cpu and cpuacct mounted together ("cpu,cpuacct"): one hierarchy
			}
			seen[real] = true
		}
		dir := filepath.Join(top, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return nil, fmt.Errorf("cgroup v1 %s: %w", ctrl, err)
		}
		parents = append(parents, dir)
	}
	return &Cgroups{parents: parents}, nil
}

// setupCgroupsV2 makes the parent under the hierarchy's top, whose
// processes do not keep it from handing controllers down when it is the
// real root cgroup (a container's cgroup namespace root is not).
func setupCgroupsV2(name string) (*Cgroups, error) {
	c := &Cgroups{parents: []string{filepath.Join(cgroupRoot, name)}, v2: true}
	if err := c.makeParent(c.parents[0]); err != nil {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	return c, nil
}

// makeParent makes the parent dir and, in v2, hands it and its children
// the memory, pids and (where it can) cpu controllers.
func (c *Cgroups) makeParent(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	if !c.v2 {
		return nil
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
			_ = os.Remove(dir)
			return fmt.Errorf("enable memory and pids in %s: %w", d, err)
		}
		_ = os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+cpu"), 0)
	}
	return nil
}

// Limits are a sandbox's resources, from its template.
type Limits struct {
	MemoryMB, CPUCount int
}

// PIDs is the process limit a sandbox gets: one process per MiB of memory,
// at least 128; a fork bomb stops there, long before the host's pid_max.
func (l Limits) PIDs() int { return max(l.MemoryMB, 128) }

// New makes the sandbox cgroup name with limits l.
func (c *Cgroups) New(name string, l Limits) (*Cgroup, error) {
	g := &Cgroup{v2: c.v2}
	for _, p := range c.parents {
		dir := filepath.Join(p, name)
		err := os.Mkdir(dir, 0o755)
		// Another emulator's sweep removes the parent while it is empty, and may
		// do so again between remaking it and making the sandbox's dir in it.
		for try := 0; errors.Is(err, os.ErrNotExist) && try < 20; try++ {
			if err = c.makeParent(p); err == nil {
				err = os.Mkdir(dir, 0o755)
			}
		}
		if err != nil && !os.IsExist(err) {
			g.Remove()
			return nil, err
		}
		g.dirs = append(g.dirs, dir)
	}
	mem := strconv.FormatInt(int64(max(l.MemoryMB, 16))<<20, 10)
	pids := strconv.Itoa(l.PIDs())
	quota := strconv.Itoa(max(l.CPUCount, 1) * 100000)
	var writes [][2]string // file, value: a limit the kernel refuses is an error, except the optional ones below
	var optional [][2]string
	for _, d := range g.dirs {
		switch {
		case c.v2:
			writes = append(writes, [2]string{filepath.Join(d, "memory.max"), mem}, [2]string{filepath.Join(d, "pids.max"), pids})
			optional = append(optional, [2]string{filepath.Join(d, "memory.swap.max"), "0"}, [2]string{filepath.Join(d, "cpu.max"), quota + " 100000"})
		case strings.Contains(d, "/memory/"):
			writes = append(writes, [2]string{filepath.Join(d, "memory.limit_in_bytes"), mem})
			optional = append(optional, [2]string{filepath.Join(d, "memory.memsw.limit_in_bytes"), mem})
		case strings.Contains(d, "/pids/"):
			writes = append(writes, [2]string{filepath.Join(d, "pids.max"), pids})
		case strings.Contains(d, "/cpu/"):
			optional = append(optional, [2]string{filepath.Join(d, "cpu.cfs_period_us"), "100000"}, [2]string{filepath.Join(d, "cpu.cfs_quota_us"), quota})
		}
	}
	for _, w := range writes {
		if err := os.WriteFile(w[0], []byte(w[1]), 0); err != nil {
			g.Remove()
			return nil, fmt.Errorf("cgroup limit %s: %w", filepath.Base(w[0]), err)
		}
	}
	for _, w := range optional {
		_ = os.WriteFile(w[0], []byte(w[1]), 0)
	}
	return g, nil
}

// ProcsFiles are the files a process writes its pid to to join the cgroup.
func (g *Cgroup) ProcsFiles() []string {
	if g == nil {
		return nil
	}
	out := make([]string, len(g.dirs))
	for i, d := range g.dirs {
		out[i] = filepath.Join(d, "cgroup.procs")
	}
	return out
}

// Add moves pid into the cgroup.
func (g *Cgroup) Add(pid int) error {
	for _, f := range g.ProcsFiles() {
		if err := os.WriteFile(f, []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

// Remove kills what is left in the cgroup and removes it.
func (g *Cgroup) Remove() {
	if g == nil {
		return
	}
	for _, d := range g.dirs {
		removeCgroup(d)
	}
}

// removeCgroup kills the processes of dir and removes it, waiting up to
// 5 s for the kernel to let the dying go.
func removeCgroup(dir string) {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pids := cgroupPIDs(dir)
		for _, pid := range pids {
			KillPID(pid, SigKill)
		}
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
	}
}

func cgroupPIDs(dir string) []int {
	data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			out = append(out, pid)
		}
	}
	return out
}

// Sweep ends every process a previous emulator on the same data directory
// left in its sandboxes' cgroups and removes those cgroups (another data
// directory's are another emulator's, maybe running). It returns how many
// processes it killed.
func (c *Cgroups) Sweep() int {
	killed := 0
	for _, p := range c.parents {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(p, e.Name())
			killed += len(cgroupPIDs(dir))
			removeCgroup(dir)
		}
		// Emulators that never closed (their tests' processes exited) left
		// empty parents; rmdir takes only one without sandboxes, and a
		// running emulator makes its own again (New).
		others, _ := filepath.Glob(filepath.Join(filepath.Dir(p), cgroupPrefix+"*"))
		for _, o := range others {
			if o != p {
				_ = os.Remove(o)
			}
		}
	}
	return killed
}

// Remove ends what is left in the sandboxes' cgroups and removes them and
// the parent: the emulator is closing.
func (c *Cgroups) Remove() {
	c.Sweep()
	for _, p := range c.parents {
		_ = os.Remove(p)
	}
}

// CPUTime is the CPU time every process of the cgroup has used, those that ended included
// (v2: cpu.stat's usage_usec, which the kernel keeps without the cpu controller; v1:
// cpuacct.usage, in the cpuacct hierarchy or a cpu one mounted with it); ok is false where it
// cannot be read.
func (g *Cgroup) CPUTime() (d time.Duration, ok bool) {
	if g == nil {
		return 0, false
	}
	for _, dir := range g.dirs {
		switch {
		case g.v2:
			data, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
			if err != nil {
				return 0, false
			}
			for _, line := range strings.Split(string(data), "\n") {
				if v, found := strings.CutPrefix(line, "usage_usec "); found {
					n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
					return time.Duration(n) * time.Microsecond, err == nil
				}
			}
			return 0, false
		default:
			data, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
			if err != nil {
				continue // another controller's hierarchy
			}
			n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			return time.Duration(n), err == nil
		}
	}
	return 0, false
}
