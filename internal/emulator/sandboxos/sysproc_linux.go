package sandboxos

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func (k Signal) sys() syscall.Signal {
	switch k {
	case SigStop:
		return syscall.SIGSTOP
	case SigCont:
		return syscall.SIGCONT
	case SigTerm:
		return syscall.SIGTERM
	default:
		return syscall.SIGKILL
	}
}

// SysProcAttr puts every command in its own process group and, with
// isolation, in a new mount namespace.
func SysProcAttr(isolate bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if isolate {
		a.Cloneflags = syscall.CLONE_NEWNS
	}
	return a
}

// AsTerminalSession makes a command the leader of a new session whose
// controlling terminal is its stdin (a pty): its own process group too.
func AsTerminalSession(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Setsid, a.Setctty, a.Ctty = false, true, true, 0
	return a
}

// KillGroup signals process group pgid, whose leader started at start (clock
// ticks after boot, as /proc reports it). Group IDs are process IDs, and the
// kernel hands a process ID out again once nothing uses it (pid_max can be as
// low as 32768): a group whose leader slot now holds a process that started at
// another time is someone else's, and is left alone.
func KillGroup(pgid int, start uint64, sig Signal) {
	if pgid <= 1 || !SameProcess(pgid, start) {
		return
	}
	_ = syscall.Kill(-pgid, sig.sys()) // ESRCH: the group is gone
}

// SameProcess reports whether pid, if it is running, is the process that
// started at start. A pid with no process is "the same": while any member
// of a group lives, the kernel does not give its ID to a new process.
func SameProcess(pid int, start uint64) bool {
	e, ok := readProcStat(pid)
	return !ok || e.Start == start
}

// ProcessStart is pid's start time in clock ticks after boot (0 if unknown).
func ProcessStart(pid int) uint64 {
	e, _ := readProcStat(pid)
	return e.Start
}

func KillPID(pid int, sig Signal) {
	if pid > 1 {
		_ = syscall.Kill(pid, sig.sys())
	}
}

// MountNamespace identifies the mount namespace of pid ("" if unknown).
func MountNamespace(pid int) string { return Namespace(pid, "mnt") }

// Namespace identifies pid's namespace of a kind ("mnt", "pid"...) as
// "kind:[inode]" ("" if unknown): IDs of different kinds never collide.
func Namespace(pid int, kind string) string {
	ns, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "ns", kind))
	if err != nil {
		return ""
	}
	return ns
}

// WaitUntilRunning waits, up to limit, until none of pids is stopped.
func WaitUntilRunning(pids []int, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		stopped := false
		for _, pid := range pids {
			if e, ok := readProcStat(pid); ok && (e.State == 'T' || e.State == 't') {
				stopped = true
				break
			}
		}
		if !stopped {
			return
		}
	}
}

// InnermostPID is the pid a process has in the innermost PID namespace it is
// in (the last NSpid field of /proc/<pid>/status), as its own code and every
// other process of its sandbox see it; pid itself when that cannot be read.
// A process that has just ended may show 0 there (its pid already left the
// namespace): that is no pid, and envd never reports 0.
func InnermostPID(pid int) int {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return pid
	}
	if n, ok := innermostNSpid(string(status)); ok {
		return n
	}
	return pid
}

// innermostNSpid reads the last field of a /proc status file's NSpid line; a
// pid of 0 is none.
func innermostNSpid(status string) (int, bool) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if n, err := strconv.Atoi(f[len(f)-1]); err == nil && n > 0 {
					return n, true
				}
			}
		}
	}
	return 0, false
}

// ProcState is pid's state as /proc reports it (R, S, T...; 0 if gone).
func ProcState(pid int) byte {
	e, _ := readProcStat(pid)
	return e.State
}

// ChildPID is the first child of pid the host's /proc lists (0 if none).
func ChildPID(pid int) int {
	for _, p := range ProcPIDs() {
		if e, ok := readProcStat(p); ok && e.PPID == pid {
			return p
		}
	}
	return 0
}

func ProcPIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// HoldNamespace opens pid's namespace of a kind ("mnt", "pid"); the open
// file keeps the namespace (and so its ID) alive.
func HoldNamespace(pid int, kind string) (string, *os.File) {
	p := filepath.Join("/proc", strconv.Itoa(pid), "ns", kind)
	ns, err := os.Readlink(p)
	if err != nil {
		return "", nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", nil
	}
	return ns, f
}

// ScanProcs lists host processes with their group, CPU ticks, RSS and
// (optionally) mount namespace, reading each /proc/<pid>/stat once.
func ScanProcs(withNS bool) []ProcEntry {
	self := os.Getpid()
	var out []ProcEntry
	for _, pid := range ProcPIDs() {
		if pid == self {
			continue
		}
		e, ok := readProcStat(pid)
		if !ok || e.PGRP == 0 {
			continue
		}
		if withNS {
			e.NS, e.PIDNS = Namespace(pid, "mnt"), Namespace(pid, "pid")
		}
		out = append(out, e)
	}
	return out
}

// readProcStat parses pgrp, utime+stime and RSS from /proc/<pid>/stat.
func readProcStat(pid int) (ProcEntry, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ProcEntry{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ProcEntry{}, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is the state (field 3 of stat)
	if len(f) < 22 {
		return ProcEntry{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	start, _ := strconv.ParseUint(f[19], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return ProcEntry{PID: pid, PPID: ppid, PGRP: pgrp, State: f[0][0], Ticks: ut + st, RSS: pages * int64(os.Getpagesize()), Start: start}, true
}

func FileOwnerTimes(fi os.FileInfo) (OwnerTimes, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return OwnerTimes{}, false
	}
	return OwnerTimes{
		UID: st.Uid, GID: st.Gid,
		Atime: time.Unix(st.Atim.Sec, st.Atim.Nsec).UTC(),
		Ctime: time.Unix(st.Ctim.Sec, st.Ctim.Nsec).UTC(),
	}, true
}

// OwnMountNamespace and OwnPIDNamespace are the emulator's own, which no
// sandbox may claim as its own.
var (
	OwnMountNamespace = MountNamespace(os.Getpid())
	OwnPIDNamespace   = Namespace(os.Getpid(), "pid")
)
