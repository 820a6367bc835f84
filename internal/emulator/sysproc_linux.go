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

// pidsInNamespaces lists processes living in any of the mount namespaces.
func pidsInNamespaces(ns map[string]struct{}) []int {
	if len(ns) == 0 {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, pid := range procPIDs() {
		if pid == self {
			continue
		}
		if _, ok := ns[mountNamespace(pid)]; ok {
			out = append(out, pid)
		}
	}
	return out
}

// processGroup reads the pgrp field of /proc/<pid>/stat.
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

// pidsOfSandbox lists live processes in the sandbox's groups or namespaces.
func pidsOfSandbox(groups map[int]struct{}, ns map[string]struct{}) []int {
	self := os.Getpid()
	var out []int
	for _, pid := range procPIDs() {
		if pid == self {
			continue
		}
		if _, ok := groups[processGroup(pid)]; ok {
			out = append(out, pid)
			continue
		}
		if len(ns) > 0 {
			if _, ok := ns[mountNamespace(pid)]; ok {
				out = append(out, pid)
			}
		}
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
