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

func killGroup(pgid int, sig signalKind) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, sig.sys()) // ESRCH: the group is gone
	}
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
}

// scanProcs lists host processes with their group and (optionally) mount namespace.
func scanProcs(withNS bool) []procEntry {
	self := os.Getpid()
	var out []procEntry
	for _, pid := range procPIDs() {
		if pid == self {
			continue
		}
		e := procEntry{pid: pid, pgrp: processGroup(pid)}
		if e.pgrp == 0 {
			continue
		}
		if withNS {
			e.ns = mountNamespace(pid)
		}
		out = append(out, e)
	}
	return out
}

// procStat returns utime+stime ticks and RSS bytes of pid.
func procStat(pid int) (ticks uint64, rss int64) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 22 {
		return 0, 0
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return ut + st, pages * int64(os.Getpagesize())
}

const clockTicks = 100 // USER_HZ on Linux

// processGroup reads the pgrp field of /proc/<pid>/stat (0 if unknown).
func processGroup(pid int) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(fields[2])
	return g
}
