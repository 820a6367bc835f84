package sandboxos_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// hostProcsWith lists the host processes whose command line holds marker.
func hostProcsWith(marker string) []string {
	var out []string
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		data, err := os.ReadFile(m)
		cmdline := strings.ReplaceAll(string(data), "\x00", " ")
		if err == nil && strings.Contains(cmdline, marker) && filepath.Base(filepath.Dir(m)) != fmt.Sprint(os.Getpid()) {
			out = append(out, filepath.Base(filepath.Dir(m))+": "+cmdline)
		}
	}
	return out
}

// escapes is what a sandbox runs to outlive it: a daemon in a session, a
// process group and a mount namespace of its own (where its root may make
// one: not without a user namespace), and a plain background one.
func escapes(seconds int) string {
	return fmt.Sprintf(`setsid sh -c 'unshare -m sleep %d 2>/dev/null || exec sleep %d' >/dev/null 2>&1 </dev/null & nohup setsid sleep %d >/dev/null 2>&1 </dev/null & sleep 0.3`, seconds, seconds, seconds+1)
}

// TestSandboxProcessesEndWithTheSandbox: what a sandbox starts, however it
// detaches, ends when the sandbox is killed.
func TestSandboxProcessesEndWithTheSandbox(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("the escape needs unshare on the host")
	}
	c, sb := startPrivateRoots(t)
	secs := 800000 + int(time.Now().UnixNano()%100000)
	marker := fmt.Sprintf("sleep %d", secs)
	c.MustRunAs(sb, "root", escapes(secs)) // unshare -m needs the sandbox's root
	if len(hostProcsWith(marker)) == 0 {
		t.Fatal("the escaping processes never started")
	}
	st, data, _ := c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, 204)
	emulatortest.Eventually(t, "the sandbox's processes end with it", func() bool { return len(hostProcsWith(marker)) == 0 })
}

// killedEmulatorEnv makes TestKilledEmulatorChild the emulator that
// TestSandboxProcessesEndWithAKilledEmulator kills with SIGKILL.
const killedEmulatorEnv = "E2B_EMULATOR_KILLED_CHILD_DATA_DIR"

// TestKilledEmulatorChild is an emulator in a process of its own: it starts
// a sandbox whose processes try to outlive it, says "ready" and waits to be
// killed.
func TestKilledEmulatorChild(t *testing.T) {
	dataDir := os.Getenv(killedEmulatorEnv)
	if dataDir == "" {
		t.Skip("runs only as the process TestSandboxProcessesEndWithAKilledEmulator kills")
	}
	c := emulatortest.Start(t, emulator.Options{DataDir: dataDir})
	sb := c.Create(map[string]any{})
	if c.Machine(sb.SandboxID).Root() == nil {
		fmt.Println("no private root")
		return
	}
	c.MustRunAs(sb, "root", escapes(700000+len(dataDir)))
	fmt.Println("ready")
	time.Sleep(5 * time.Minute)
}

// TestSandboxProcessesEndWithAKilledEmulator: after kill -9 of the
// emulator, no process of its sandboxes keeps running; an emulator started
// again on the same data directory ends what was left in its sandboxes'
// cgroups.
func TestSandboxProcessesEndWithAKilledEmulator(t *testing.T) {
	t.Parallel()
	if os.Getenv(killedEmulatorEnv) != "" {
		t.Skip("this is the child")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("the escape needs unshare on the host")
	}
	dataDir := filepath.Join(t.TempDir(), "data-"+ids.Hex(4))
	marker := fmt.Sprintf("sleep %d", 700000+len(dataDir))
	child := exec.Command(os.Args[0], "-test.run=^TestKilledEmulatorChild$", "-test.v")
	child.Env = append(os.Environ(), killedEmulatorEnv+"="+dataDir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := sc.Text(); line == "ready" {
			break
		} else if line == "no private root" {
			t.Skip("this host gives sandboxes no private root (the emulator's start-up log says why)")
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if len(hostProcsWith(marker)) == 0 {
		t.Fatal("the escaping processes never started")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	emulatortest.Eventually(t, "the sandbox's processes end with the killed emulator", func() bool { return len(hostProcsWith(marker)) == 0 })

	// What a killed emulator may still leave in a sandbox's cgroup, the next one on the data directory ends.
	c := emulatortest.Start(t, emulator.Options{DataDir: dataDir})
	sb := c.Create(map[string]any{})
	m := c.Machine(sb.SandboxID)
	skipWithoutCgroups(t)
	procs := cgroupProcsFiles(t, m.Root().HolderPID())
	if len(procs) == 0 {
		t.Fatal("the sandbox has no cgroup of its own")
	}
	leftover := exec.Command("sleep", "600")
	if err := leftover.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = leftover.Process.Kill() })
	for _, f := range procs {
		dir := filepath.Join(filepath.Dir(filepath.Dir(f)), "leftover")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprint(leftover.Process.Pid)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Srv.Close(); err != nil {
		t.Fatal(err)
	}
	emulatortest.Start(t, emulator.Options{DataDir: dataDir})
	done := make(chan struct{})
	go func() { _ = leftover.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the start-up sweep left a process in a previous sandbox's cgroup")
	}
}

// skipWithoutCgroups skips where the host cannot give a sandbox a cgroup
// (no root, no memory and pids controllers).
func skipWithoutCgroups(t *testing.T) {
	t.Helper()
	cg, err := sandboxos.SetupCgroups(t.TempDir())
	if err != nil {
		t.Skipf("this host gives sandboxes no cgroup: %v", err)
	}
	cg.Remove()
}

// cgroupProcsFiles are the cgroup.procs files of pid's sandbox cgroups
// (those under an e2b-emulator-* parent).
func cgroupProcsFiles(t *testing.T, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.Contains(f[2], "/e2b-emulator-") {
			continue
		}
		ctrl := strings.Split(f[1], ",")[0]
		dir := filepath.Join("/sys/fs/cgroup", ctrl, f[2])
		if f[1] == "" {
			dir = filepath.Join("/sys/fs/cgroup", f[2])
		}
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
			out = append(out, filepath.Join(dir, "cgroup.procs"))
		}
	}
	return out
}

// TestSandboxLimitsContainForkBombAndMemoryHog: a sandbox's process count
// stops at its pids limit and a process growing past the template's memory
// is killed, in the sandbox, not on the host.
func TestSandboxLimitsContainForkBombAndMemoryHog(t *testing.T) {
	t.Parallel()
	skipWithoutCgroups(t)
	c, sb := startPrivateRoots(t)
	// 2000 sleepers, a bounded fork bomb: over the limit (512 for the base template's 512 MiB), under the host's.
	// Counting and ending them uses no fork: at the limit, none is left.
	out := c.MustRun(sb, `sh -c 'for i in $(seq 1 2000); do sleep 30 & done' >/dev/null 2>&1; set -- /proc/[0-9]*; echo $#; `+
		`for p in /proc/[0-9]*; do read -r c <$p/comm && [ "$c" = sleep ] && kill ${p#/proc/}; done 2>/dev/null; true`)
	var live int
	if _, err := fmt.Sscan(strings.TrimSpace(out), &live); err != nil || live > 600 || live < 100 {
		t.Fatalf("processes in the sandbox after 2000 forks: %q, want the pids limit (512) to stop them", out)
	}
	t.Logf("processes in the sandbox after 2000 forks: %d (pids limit 512)", live)
	// 800 MiB in one process, over the template's 512 MiB.
	res := c.Run(sb, `head -c 800m /dev/zero | tail -n 1 >/dev/null`)
	if res.End["exitCode"] == nil {
		t.Fatalf("a process held 800 MiB in a 512 MiB sandbox: %+v", res.End)
	}
	if got := c.MustRun(sb, "echo alive"); got != "alive\n" {
		t.Fatalf("the sandbox after its memory hog: %q", got)
	}
}
