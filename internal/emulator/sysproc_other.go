//go:build !linux

package emulator

import (
	"os"
	"syscall"
)

type signalKind int

const (
	sigStop signalKind = iota
	sigCont
	sigKill
	sigTerm
)

func sysProcAttr(bool) *syscall.SysProcAttr { return nil }

// asTerminalSession leaves the attributes alone: the terminal is the
// command's stdin and stdout, not its controlling terminal.
func asTerminalSession(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }

// killGroup falls back to signalling the leader only.
func killGroup(pgid int, _ uint64, sig signalKind) { killPID(pgid, sig) }

func processStart(int) uint64 { return 0 }

func killPID(pid int, sig signalKind) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if sig == sigKill {
		_ = p.Kill()
	}
}

type procEntry struct {
	pid, pgrp int
	ns        string
	ticks     uint64
	rss       int64
	start     uint64
}

func holdNamespace(int) (string, *os.File) { return "", nil }
func scanProcs(bool) []procEntry           { return nil }

const clockTicks = 100

var ownMountNamespace = ""
