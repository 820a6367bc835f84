package sandboxos

import "time"

// The types below are the same on every platform; sysproc_linux.go and
// sysproc_other.go fill them.

// Signal is a signal the emulator sends to a sandbox's processes.
type Signal int

const (
	SigStop Signal = iota
	SigCont
	SigKill
	SigTerm
)

// ProcEntry is one host process: its group, CPU ticks and RSS.
type ProcEntry struct {
	PID, PGRP int
	PPID      int
	State     byte   // R, S, T (stopped)...
	NS        string // mount namespace (with ScanProcs(true))
	PIDNS     string // PID namespace (with ScanProcs(true))
	Ticks     uint64 // utime+stime
	RSS       int64  // bytes
	Start     uint64 // start time, clock ticks after boot: with pid, a process's identity
}

const ClockTicks = 100 // USER_HZ on Linux

// OwnerTimes is what Stat_t adds to os.FileInfo.
type OwnerTimes struct {
	UID, GID     uint32
	Atime, Ctime time.Time
}
