package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGKILL of the CLI while a command runs in an ephemeral sandbox: the CLI cannot stop its
// provider, so the provider notices it was orphaned, kills the sandbox it opened and exits.
func TestCLIEphemeralSandbox_killedCLIProviderExitsAndKillsIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the provider process through /proc, which only Linux has")
	}
	ws, rec := cliWorkspace(t)
	cmd, out, id := startApplyRunning(t, ws, rec, "sleep 300")
	providers := providerProcesses(cmd.Process.Pid)
	if len(providers) == 0 {
		_ = cmd.Process.Kill()
		t.Fatalf("no provider process runs under the CLI (pid %d)", cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, pid := range providers {
		if err := waitProcessGone(pid, 60*time.Second); err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("provider %d: %v", pid, err)
		}
	}
	if err := rec.checkUsedAndKilled(ws.Emulator, id); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if err := checkAllKilled(ws.Emulator, rec); err != nil {
		t.Fatal(err)
	}
}

// providerProcesses returns the terraform-provider-e2b processes whose parent is pid.
func providerProcesses(parent int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		pid, ppid, _, ok := procStat(f)
		if !ok || ppid != parent {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "cmdline"))
		if strings.Contains(string(cmdline), "terraform-provider-e2b") {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads a process's ID, parent ID and state from /proc/<pid>/stat.
func procStat(file string) (pid, ppid int, state string, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if end < 0 {
		return 0, 0, "", false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return 0, 0, "", false
	}
	pid, err1 := strconv.Atoi(strings.Fields(s)[0])
	ppid, err2 := strconv.Atoi(fields[1])
	return pid, ppid, fields[0], err1 == nil && err2 == nil
}

// waitProcessGone waits until pid has exited (a zombie waiting for its new parent counts).
func waitProcessGone(pid int, within time.Duration) error {
	file := fmt.Sprintf("/proc/%d/stat", pid)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, _, state, ok := procStat(file); !ok || state == "Z" || state == "X" {
			return nil
		}
	}
	return fmt.Errorf("still running %s after its CLI was killed", within)
}
