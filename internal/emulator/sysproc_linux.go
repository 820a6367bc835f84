package emulator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

type signalKind int

const (
	sigStop signalKind = iota
	sigCont
	sigKill
	sigTerm
)

func (k signalKind) sys() syscall.Signal {
	switch k {
	case sigStop:
		return syscall.SIGSTOP
	case sigCont:
		return syscall.SIGCONT
	case sigTerm:
		return syscall.SIGTERM
	default:
		return syscall.SIGKILL
	}
}

// sysProcAttr puts every command in its own process group and, with
// isolation, in a new mount namespace.
func sysProcAttr(isolate bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if isolate {
		a.Cloneflags = syscall.CLONE_NEWNS
	}
	return a
}

// asTerminalSession makes a command the leader of a new session whose
// controlling terminal is its stdin (a pty): its own process group too.
func asTerminalSession(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Setsid, a.Setctty, a.Ctty = false, true, true, 0
	return a
}

// killGroup signals process group pgid, whose leader started at start (clock
// ticks after boot, as /proc reports it). Group IDs are process IDs, and the
// kernel hands a process ID out again once nothing uses it (pid_max can be as
// low as 32768): a group whose leader slot now holds a process that started at
// another time is someone else's, and is left alone.
func killGroup(pgid int, start uint64, sig signalKind) {
	if pgid <= 1 || !sameProcess(pgid, start) {
		return
	}
	_ = syscall.Kill(-pgid, sig.sys()) // ESRCH: the group is gone
}

// sameProcess reports whether pid, if it is running, is the process that
// started at start. A pid with no process is "the same": while any member
// of a group lives, the kernel does not give its ID to a new process.
func sameProcess(pid int, start uint64) bool {
	e, ok := readProcStat(pid)
	return !ok || e.start == start
}

// processStart is pid's start time in clock ticks after boot (0 if unknown).
func processStart(pid int) uint64 {
	e, _ := readProcStat(pid)
	return e.start
}

func killPID(pid int, sig signalKind) {
	if pid > 1 {
		_ = syscall.Kill(pid, sig.sys())
	}
}

// mountNamespace identifies the mount namespace of pid ("" if unknown).
func mountNamespace(pid int) string {
	ns, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "ns", "mnt"))
	if err != nil {
		return ""
	}
	return ns
}

func procPIDs() []int {
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

// holdNamespace opens pid's mount namespace; the open file keeps the
// namespace (and so its ID) alive.
func holdNamespace(pid int) (string, *os.File) {
	p := filepath.Join("/proc", strconv.Itoa(pid), "ns", "mnt")
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

type procEntry struct {
	pid, pgrp int
	ns        string
	ticks     uint64 // utime+stime
	rss       int64  // bytes
	start     uint64 // start time, clock ticks after boot: with pid, a process's identity
}

// scanProcs lists host processes with their group, CPU ticks, RSS and
// (optionally) mount namespace, reading each /proc/<pid>/stat once.
func scanProcs(withNS bool) []procEntry {
	self := os.Getpid()
	var out []procEntry
	for _, pid := range procPIDs() {
		if pid == self {
			continue
		}
		e, ok := readProcStat(pid)
		if !ok || e.pgrp == 0 {
			continue
		}
		if withNS {
			e.ns = mountNamespace(pid)
		}
		out = append(out, e)
	}
	return out
}

// readProcStat parses pgrp, utime+stime and RSS from /proc/<pid>/stat.
func readProcStat(pid int) (procEntry, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procEntry{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procEntry{}, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is the state (field 3 of stat)
	if len(f) < 22 {
		return procEntry{}, false
	}
	pgrp, _ := strconv.Atoi(f[2])
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	start, _ := strconv.ParseUint(f[19], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return procEntry{pid: pid, pgrp: pgrp, ticks: ut + st, rss: pages * int64(os.Getpagesize()), start: start}, true
}

const clockTicks = 100 // USER_HZ on Linux

// ownMountNamespace is the emulator's own mount namespace, which no sandbox
// may claim as its own.
var ownMountNamespace = mountNamespace(os.Getpid())
