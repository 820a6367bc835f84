//go:build linux

package envd

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// foreignGroup is a process in a group of its own that no sandbox started:
// it stands for an unrelated program that was handed the ID of a group a
// sandbox once had. One goroutine waits for it (a second Wait would race).
type foreignGroup struct {
	*exec.Cmd
	done chan struct{}
}

func startForeignGroup(t *testing.T) foreignGroup {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := foreignGroup{Cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-g.done })
	return g
}

func exited(g foreignGroup) bool {
	select {
	case <-g.done:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

func TestSignalsNeverReachAGroupWhoseIDWasHandedOutAgain(t *testing.T) {
	foreign := startForeignGroup(t)
	pid := foreign.Process.Pid
	pt := &processTable{sb: &Machine{settings: &Settings{Logf: func(string, ...any) {}}}, byPID: map[uint32]*process{}, groups: map[int]uint64{}}

	// The sandbox once had a group with this ID, led by a process that started earlier.
	pt.groups[pid] = sandboxos.ProcessStart(pid) - 1
	pt.signalAll(sandboxos.SigKill)
	(&process{pid: uint32(pid), start: sandboxos.ProcessStart(pid) - 1}).signalGroup(sandboxos.SigKill)
	if exited(foreign) {
		t.Fatal("a process that only reuses the ID of a sandbox's old group was killed")
	}
	if _, still := pt.groups[pid]; still {
		t.Error("the stale group was not forgotten")
	}

	// The same calls with the leader's real start time do reach it.
	own := startForeignGroup(t)
	pt.groups[own.Process.Pid] = sandboxos.ProcessStart(own.Process.Pid)
	pt.signalAll(sandboxos.SigKill)
	if !exited(own) {
		t.Fatal("the sandbox's own group was not signalled")
	}
}
