package envd

import (
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// Which host processes belong to a sandbox: the process groups it started
// and, with isolation, every process inside its PID namespace (private
// root) or the mount namespaces it created (shared layout); this also
// catches daemons that left their process group.

// trackLocked records a new command's group and namespace. Caller holds pt.mu.
func (pt *processTable) trackLocked(pid int, start uint64) {
	pt.groups[pid] = start
	if !pt.sb.settings.Isolate {
		return
	}
	kind, own := "mnt", sandboxos.OwnMountNamespace
	if init := pt.sb.root.InitPID(); init != 0 {
		// commands join the init's namespaces only once nsenter has run
		pid, kind, own = init, "pid", sandboxos.OwnPIDNamespace
	}
	ns, f := sandboxos.HoldNamespace(pid, kind)
	if f == nil {
		return
	}
	if ns == own { // never treat the emulator's own namespace as the sandbox's
		_ = f.Close()
		return
	}
	if _, dup := pt.mntNS[ns]; dup {
		_ = f.Close()
		return
	}
	pt.mntNS[ns] = f
}

// pruneMembers forgets groups and namespaces without live processes, so a
// recycled group or namespace ID can never point at another sandbox.
func (pt *processTable) pruneMembers() {
	pt.pruneMembersIn(sandboxos.ScanProcs(pt.sb.settings.Isolate))
}

// pruneMembersIn is pruneMembers with a host scan the caller already has.
func (pt *processTable) pruneMembersIn(procs []sandboxos.ProcEntry) {
	liveGroups := map[int]bool{}
	liveNS := map[string]bool{}
	for _, p := range procs {
		liveGroups[p.PGRP] = true
		for _, ns := range []string{p.NS, p.PIDNS} {
			if ns != "" {
				liveNS[ns] = true
			}
		}
	}
	starts := startsOf(procs)
	pt.mu.Lock()
	defer pt.mu.Unlock()
	for g, start := range pt.groups {
		if !liveGroups[g] || !leaderIs(starts, g, start) {
			delete(pt.groups, g)
		}
	}
	for ns, f := range pt.mntNS {
		if !liveNS[ns] {
			_ = f.Close()
			delete(pt.mntNS, ns)
		}
	}
}

// membersIn picks the sandbox's processes out of a host scan.
func (pt *processTable) membersIn(procs []sandboxos.ProcEntry) []sandboxos.ProcEntry {
	starts := startsOf(procs)
	pt.mu.Lock()
	defer pt.mu.Unlock()
	var out []sandboxos.ProcEntry
	init := pt.sb.root.InitPID() // in the namespace but no process of the sandbox's
	for _, p := range procs {
		if init != 0 && p.PID == init {
			continue
		}
		start, tracked := pt.groups[p.PGRP]
		inGroup := tracked && leaderIs(starts, p.PGRP, start)
		_, inNS := pt.mntNS[p.NS]
		_, inPIDNS := pt.mntNS[p.PIDNS]
		if inGroup || (p.NS != "" && inNS) || (p.PIDNS != "" && inPIDNS) {
			out = append(out, p)
		}
	}
	return out
}

// signalAll signals every live process of the sandbox.
func (pt *processTable) signalAll(sig sandboxos.Signal) {
	procs := sandboxos.ScanProcs(pt.sb.settings.Isolate)
	pt.pruneMembersIn(procs)
	pt.mu.Lock()
	groups := make(map[int]uint64, len(pt.groups))
	for g, start := range pt.groups {
		groups[g] = start
	}
	pt.mu.Unlock()
	if sig == sandboxos.SigCont {
		pt.continueInsideFirst(procs)
	}
	for g, start := range groups {
		sandboxos.KillGroup(g, start, sig)
	}
	if sig == sandboxos.SigCont && pt.sb.root != nil {
		continueLaunchers(groups)
	}
	for _, p := range pt.membersIn(procs) {
		sandboxos.KillPID(p.PID, sig)
	}
}

// continueInsideFirst continues the processes inside the sandbox's PID
// namespace and waits until they run, before signalAll continues their
// launchers: nsenter, which forked each command into the namespace, stops
// itself when it finds its child stopped, and would stay stopped for good
// if it found that only after its own SIGCONT.
func (pt *processTable) continueInsideFirst(procs []sandboxos.ProcEntry) {
	var inside []int
	for _, p := range pt.membersIn(procs) {
		pt.mu.Lock()
		_, in := pt.mntNS[p.PIDNS]
		pt.mu.Unlock()
		if p.PIDNS != "" && in {
			sandboxos.KillPID(p.PID, sandboxos.SigCont)
			inside = append(inside, p.PID)
		}
	}
	sandboxos.WaitUntilRunning(inside, time.Second)
}

// continueLaunchers continues again, until each is back waiting (or gone,
// up to 2 s), the launchers that stopped themselves after the SIGCONT: a
// launcher stopped while it was about to stop itself for its child's stop
// does so as soon as it runs again.
func continueLaunchers(groups map[int]uint64) {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		settled := true
		for g, start := range groups {
			switch sandboxos.ProcState(g) {
			case 'T':
				sandboxos.KillGroup(g, start, sandboxos.SigCont)
				settled = false
			case 'R':
				settled = false // not yet back in its wait
			}
		}
		if settled {
			return
		}
	}
}

// killAll kills every process of the sandbox, closes their stdin and
// releases the namespaces.
func (pt *processTable) killAll() {
	pt.signalAll(sandboxos.SigKill)
	pt.mu.Lock()
	procs := make([]*process, 0, len(pt.byPID))
	for _, p := range pt.byPID {
		procs = append(procs, p)
	}
	for ns, f := range pt.mntNS {
		_ = f.Close()
		delete(pt.mntNS, ns)
	}
	pt.mu.Unlock()
	for _, p := range procs {
		p.closeStdin()
	}
}

// startsOf maps each scanned pid to its start time.
func startsOf(procs []sandboxos.ProcEntry) map[int]uint64 {
	m := make(map[int]uint64, len(procs))
	for _, p := range procs {
		m[p.PID] = p.Start
	}
	return m
}

// leaderIs reports whether group g is still the one whose leader started at
// start: its leader is gone (the kernel keeps the ID while members live) or
// is that very process. A leader that started at another time means the ID
// was handed out again and the group belongs to someone else.
func leaderIs(starts map[int]uint64, g int, start uint64) bool {
	s, present := starts[g]
	return !present || s == start
}
