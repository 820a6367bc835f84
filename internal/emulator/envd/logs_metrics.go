package envd

import (
	"encoding/json"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

const (
	// SampleInterval separates the resource samples of a running sandbox.
	SampleInterval = 5 * time.Second
	maxSamples     = 2000
	maxLogEntries  = 5000
	// DiskTotalBytes is what envd reports as the sandbox's disk: the default of E2B's base
	// template.
	DiskTotalBytes = int64(store.DefaultDiskMB) << 20
)

// E2B's envd reports the whole virtual machine (gopsutil's figures of the guest): memory used
// by the guest kernel, envd and the guest's services even when no command runs, and the CPU
// they take. The emulator's sandbox has no guest of its own, so its metrics add what an idle
// guest shows to what its processes use. Both figures are E2B's, from its metrics docs
// (https://e2b.dev/docs/sandbox/metrics, the example of a base sandbox left idle:
// memUsed 32681984, cpuUsedPct 0.2).
const (
	IdleGuestMemBytes = int64(32681984)
	IdleGuestCPUPct   = 0.2
)

// Loggers name a log line's source, as E2B's lines do: envd's process
// service for process events (E2B's CLI filters on it with --loggers),
// the emulator for the rest.
const (
	processLogger = "process"
	defaultLogger = "emulator"
)

// LogEntry is one line of the sandbox's log.
type LogEntry struct {
	At      time.Time
	Level   string
	Message string
	Fields  map[string]string
}

// MetricSample is one resource sample of the sandbox, of the whole machine as E2B's envd
// reports it: an idle guest's use plus its processes'.
type MetricSample struct {
	At        time.Time
	CPUCount  int
	CPUPct    float64
	MemUsed   int64
	MemTotal  int64
	DiskUsed  int64
	cpuTime   time.Duration // the CPU time used so far, from cpuFrom
	cpuFrom   string        // "cgroup" or "procs": samples are compared only with their like
	procCount int
}

// AddLog appends a line to the sandbox's log.
func (sb *Machine) AddLog(level, msg string, fields map[string]string) {
	f := map[string]string{"sandboxID": sb.id, "logger": defaultLogger}
	for k, v := range fields {
		f[k] = v
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	at := time.Now().UTC()
	if n := len(sb.logs); n > 0 && !at.After(sb.logs[n-1].At) {
		at = sb.logs[n-1].At.Add(time.Millisecond) // keep timestamps strictly increasing for cursors
	}
	sb.logs = append(sb.logs, LogEntry{At: at, Level: level, Message: msg, Fields: f})
	if len(sb.logs) > maxLogEntries {
		sb.logs = sb.logs[len(sb.logs)-maxLogEntries:]
	}
}

// RawLine is the entry as E2B stores it and the legacy logs route answers it
// in "line": one flat JSON object holding level, logger, message and the
// fields (E2B's API derives logEntries from these lines, and E2B's CLI parses
// every line as such an object).
func (e LogEntry) RawLine() string {
	obj := make(map[string]string, len(e.Fields)+2)
	for k, v := range e.Fields {
		obj[k] = v
	}
	obj["level"], obj["message"] = e.Level, e.Message
	data, _ := json.Marshal(obj) // a map of strings always marshals
	return string(data)
}

// LogsCopy is the sandbox's log as it is now.
func (sb *Machine) LogsCopy() []LogEntry {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return append([]LogEntry(nil), sb.logs...)
}

// TakeSample records one metrics sample from /proc and the sandbox's files.
func (sb *Machine) TakeSample() {
	sb.TakeSampleFrom(sandboxos.ScanProcs(sb.settings.Isolate))
}

// TakeSampleFrom samples using a host process scan shared by all sandboxes: CPU and memory
// are an idle guest's (IdleGuestCPUPct, IdleGuestMemBytes) plus what the sandbox's processes
// use, CPU shared over the machine's CPUs, memory at most the machine's. CPU time is the
// sandbox's cgroup's where it has one (every process it ever ran, those that ended included),
// else the sum over its live processes from /proc.
func (sb *Machine) TakeSampleFrom(procs []sandboxos.ProcEntry) {
	var ticks uint64
	var rss int64
	members := sb.procs.membersIn(procs)
	for _, p := range members {
		ticks += p.Ticks
		rss += p.RSS
	}
	cpu, from := time.Duration(ticks)*time.Second/sandboxos.ClockTicks, "procs"
	if d, ok := sb.root.CPUTime(); ok {
		cpu, from = d, "cgroup"
	}
	now := time.Now().UTC()
	s := MetricSample{
		At: now, CPUCount: sb.cpuCount, CPUPct: IdleGuestCPUPct,
		MemUsed: min(IdleGuestMemBytes+rss, sb.memTotal), MemTotal: sb.memTotal,
		DiskUsed: hostfs.DirSize(sb.dir), cpuTime: cpu, cpuFrom: from, procCount: len(members),
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if n := len(sb.samples); n > 0 {
		prev := sb.samples[n-1]
		if el := now.Sub(prev.At); el > 0 && prev.cpuFrom == from && cpu >= prev.cpuTime {
			pct := float64(cpu-prev.cpuTime) / float64(el) / float64(sb.cpuCount) * 100
			s.CPUPct = min(IdleGuestCPUPct+pct, 100)
		}
	}
	sb.samples = append(sb.samples, s)
	if len(sb.samples) > maxSamples {
		sb.samples = sb.samples[len(sb.samples)-maxSamples:]
	}
}

// SamplesCopy is the sandbox's samples as they are now.
func (sb *Machine) SamplesCopy() []MetricSample {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return append([]MetricSample(nil), sb.samples...)
}
