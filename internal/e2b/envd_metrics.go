package e2b

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// EnvdMetrics is what envd inside a running sandbox measures now (GET /metrics of envd). It
// carries more than the control plane's SandboxMetric: the state of CPU hotplug and the kernel's
// out-of-memory kills.
type EnvdMetrics struct {
	At          time.Time // the sandbox's clock
	CPUCount    int       // CPUs online
	CPUPossible int       // CPUs the guest can bring online
	// CPUTarget is the online count last asked for (0: none was); CPUTargetAttempts the tries at
	// reaching it; CPUWritePendingMs how long a CPU online or offline write has been running
	// (0: none is; a value that keeps growing means hotplug is stuck).
	CPUTarget, CPUTargetAttempts int
	CPUWritePendingMs            int64
	CPUUsedPct                   float64
	MemTotal, MemUsed, MemCache  int64 // bytes
	DiskUsed, DiskTotal          int64 // bytes
	// OOMKills are the latest (at most 32) out-of-memory kills since the guest booted, oldest
	// first; nil when envd does not know them (still reading the kernel log, cannot read it, or
	// not in a Firecracker guest), empty when there were none.
	OOMKills []OOMKill
}

// OOMKill is a process the guest kernel killed for running out of memory.
type OOMKill struct {
	Seq     int64  // kernel log sequence number; it only grows, across pauses and envd restarts
	Process string // the killed process's name, or "Unknown"
}

type wireEnvdMetrics struct {
	TS                int64   `json:"ts"`
	CPUCount          int     `json:"cpu_count"`
	CPUPossible       int     `json:"cpu_possible"`
	CPUTarget         int     `json:"cpu_target"`
	CPUTargetAttempts int     `json:"cpu_target_attempts"`
	CPUWritePendingMs int64   `json:"cpu_write_pending_ms"`
	CPUUsedPct        float64 `json:"cpu_used_pct"`
	MemTotal          int64   `json:"mem_total"`
	MemUsed           int64   `json:"mem_used"`
	MemCache          int64   `json:"mem_cache"`
	DiskUsed          int64   `json:"disk_used"`
	DiskTotal         int64   `json:"disk_total"`
	OOMKills          *[]struct {
		Seq     int64  `json:"seq"`
		Process string `json:"process"`
	} `json:"oom_kills"`
}

// Metrics reads envd's measurements of the sandbox now; the sandbox must be running.
func (e *Envd) Metrics(ctx context.Context) (*EnvdMetrics, error) {
	const op = "envd metrics"
	req, err := newGet(withCall(ctx, e.call(op, retryIdempotent, timeoutWhole)), e.base+"/metrics")
	if err != nil {
		return nil, err
	}
	e.setHeaders(req.Header, false)
	resp, err := e.c.envd.Do(req)
	if err != nil {
		return nil, requestError(ctx, op, e.t.SandboxID, err)
	}
	defer drainClose(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, envdError(op, e.t.SandboxID, "", resp)
	}
	var w wireEnvdMetrics
	if err := json.NewDecoder(capReader(resp.Body, unaryAnswerLimit)).Decode(&w); err != nil {
		return nil, &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("decode answer: %w", err)}
	}
	m := &EnvdMetrics{
		At: time.Unix(w.TS, 0).UTC(), CPUCount: w.CPUCount, CPUPossible: w.CPUPossible, CPUTarget: w.CPUTarget,
		CPUTargetAttempts: w.CPUTargetAttempts, CPUWritePendingMs: w.CPUWritePendingMs, CPUUsedPct: w.CPUUsedPct,
		MemTotal: w.MemTotal, MemUsed: w.MemUsed, MemCache: w.MemCache, DiskUsed: w.DiskUsed, DiskTotal: w.DiskTotal,
	}
	if w.OOMKills != nil {
		m.OOMKills = make([]OOMKill, 0, len(*w.OOMKills))
		for _, k := range *w.OOMKills {
			m.OOMKills = append(m.OOMKills, OOMKill{Seq: k.Seq, Process: k.Process})
		}
	}
	return m, nil
}
