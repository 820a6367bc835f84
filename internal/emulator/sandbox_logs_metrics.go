package emulator

import (
	"encoding/json"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

const (
	sampleInterval = 5 * time.Second
	maxSamples     = 2000
	maxLogEntries  = 5000
	memTotalBytes  = int64(defaultMemoryMB) << 20
	diskTotalBytes = int64(defaultDiskMB) << 20
)

// Loggers name a log line's source, as E2B's lines do: envd's process
// service for process events (E2B's CLI filters on it with --loggers),
// the emulator for the rest.
const (
	processLogger = "process"
	defaultLogger = "emulator"
)

type logEntry struct {
	at      time.Time
	level   string
	message string
	fields  map[string]string
}

type metricSample struct {
	at        time.Time
	cpuPct    float64
	memUsed   int64
	diskUsed  int64
	cpuTicks  uint64
	procCount int
}

func (sb *sandbox) addLog(level, msg string, fields map[string]string) {
	f := map[string]string{"sandboxID": sb.id, "logger": defaultLogger}
	for k, v := range fields {
		f[k] = v
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	at := time.Now().UTC()
	if n := len(sb.logs); n > 0 && !at.After(sb.logs[n-1].at) {
		at = sb.logs[n-1].at.Add(time.Millisecond) // keep timestamps strictly increasing for cursors
	}
	sb.logs = append(sb.logs, logEntry{at: at, level: level, message: msg, fields: f})
	if len(sb.logs) > maxLogEntries {
		sb.logs = sb.logs[len(sb.logs)-maxLogEntries:]
	}
}

// rawLine is the entry as E2B stores it and the legacy logs route answers it
// in "line": one flat JSON object holding level, logger, message and the
// fields (E2B's API derives logEntries from these lines, and E2B's CLI parses
// every line as such an object).
func (e logEntry) rawLine() string {
	obj := make(map[string]string, len(e.fields)+2)
	for k, v := range e.fields {
		obj[k] = v
	}
	obj["level"], obj["message"] = e.level, e.message
	data, _ := json.Marshal(obj) // a map of strings always marshals
	return string(data)
}

func (sb *sandbox) logsCopy() []logEntry {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return append([]logEntry(nil), sb.logs...)
}

// takeSample records one metrics sample from /proc and the sandbox's files.
func (sb *sandbox) takeSample() {
	sb.takeSampleFrom(sandboxos.ScanProcs(sb.host.isolate))
}

// takeSampleFrom samples using a host process scan shared by all sandboxes.
func (sb *sandbox) takeSampleFrom(procs []sandboxos.ProcEntry) {
	var ticks uint64
	var rss int64
	members := sb.procs.membersIn(procs)
	for _, p := range members {
		ticks += p.Ticks
		rss += p.RSS
	}
	now := time.Now().UTC()
	s := metricSample{at: now, memUsed: rss, diskUsed: hostfs.DirSize(sb.dir), cpuTicks: ticks, procCount: len(members)}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if n := len(sb.samples); n > 0 {
		prev := sb.samples[n-1]
		if el := now.Sub(prev.at).Seconds(); el > 0 && ticks >= prev.cpuTicks {
			pct := float64(ticks-prev.cpuTicks) / sandboxos.ClockTicks / el / float64(defaultCPUCount) * 100
			if pct > 100 {
				pct = 100
			}
			s.cpuPct = pct
		}
	}
	sb.samples = append(sb.samples, s)
	if len(sb.samples) > maxSamples {
		sb.samples = sb.samples[len(sb.samples)-maxSamples:]
	}
}

func (sb *sandbox) samplesCopy() []metricSample {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return append([]metricSample(nil), sb.samples...)
}

// runSampler samples every running sandbox every sampleInterval.
func (s *Server) runSampler() {
	defer close(s.samplerDone)
	t := time.NewTicker(sampleInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopSampler:
			return
		case now := <-t.C:
			s.mu.Lock()
			s.teamSampleLocked(now)
			var running []*sandbox
			for _, sb := range s.sandboxes {
				if sb.state == stateRunning {
					running = append(running, sb)
				}
			}
			s.mu.Unlock()
			if len(running) == 0 {
				continue
			}
			procs := sandboxos.ScanProcs(s.isolate)
			for _, sb := range running {
				sb.takeSampleFrom(procs)
			}
		}
	}
}
