//go:build !linux

package sandboxos

import (
	"os"
	"syscall"
	"time"
)

func SysProcAttr(bool) *syscall.SysProcAttr { return nil }

// AsTerminalSession leaves the attributes alone: the terminal is the
// command's stdin and stdout, not its controlling terminal.
func AsTerminalSession(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }

// KillGroup falls back to signalling the leader only.
func KillGroup(pgid int, _ uint64, sig Signal) { KillPID(pgid, sig) }

func ProcessStart(int) uint64 { return 0 }

func KillPID(pid int, sig Signal) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if sig == SigKill {
		_ = p.Kill()
	}
}

func HoldNamespace(int, string) (string, *os.File) { return "", nil }
func ScanProcs(bool) []ProcEntry                   { return nil }
func ChildPID(int) int                             { return 0 }
func WaitUntilRunning([]int, time.Duration)        {}
func ProcState(int) byte                           { return 0 }
func InnermostPID(pid int) int                     { return pid }

// FileOwnerTimes is unavailable here: entries report uid/gid 0 and mtime.
func FileOwnerTimes(os.FileInfo) (OwnerTimes, bool) { return OwnerTimes{}, false }

var OwnMountNamespace, OwnPIDNamespace = "", ""
