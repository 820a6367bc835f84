package envd

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

const (
	hdrAccessToken = "X-Access-Token"
	// Unauthorized is envd's answer to a request without a valid access token.
	Unauthorized = "unauthorized access, please provide a valid access token or method signing if supported"
)

// Serve answers one envd request for this sandbox, as envd does: the access
// token of a secure sandbox (or a signature, for /files), the user, then
// files, environment, metrics and the process and filesystem RPCs.
func (sb *Machine) Serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if sb.accessToken != "" && path != "/health" && path != "/files" {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(hdrAccessToken)), []byte(sb.accessToken)) != 1 {
			writeError(w, http.StatusUnauthorized, Unauthorized)
			return
		}
	}
	if path != "/health" {
		if status, msg := checkEnvdUser(r); status != 0 {
			writeError(w, status, msg)
			return
		}
		if _, err := sb.identity(requestUser(r)); err != nil {
			writeError(w, http.StatusForbidden, err.Error())
			return
		}
	}
	switch {
	case path == "/health":
		w.WriteHeader(http.StatusNoContent)
	case path == "/files":
		sb.serveFiles(w, r)
	case path == "/files/compose" && r.Method == http.MethodPost:
		sb.composeFiles(w, r)
	case path == "/envs" && r.Method == http.MethodGet:
		w.Header().Set("Cache-Control", "no-store")
		httpjson.Write(w, http.StatusOK, sb.envVars)
	case path == "/metrics" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, sb.envdMetrics())
	case isRPC(path) && r.Method == http.MethodPost:
		sb.serveRPC(w, r)
	default:
		http.NotFound(w, r) // envd's router answers unknown paths in plain text
	}
}

// envdMetricsJSON is envd's Metrics (the newest envd.yaml: the cpu_* hotplug fields and
// oom_kills, no mem_*_mib). The emulator has no CPU hotplug: all CPUs are online from the start,
// none was ever asked for, so no write is pending. oom_kills is left out, as envd leaves it out
// outside Firecracker: the emulator cannot read a guest kernel's log, so it does not know.
type envdMetricsJSON struct {
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
}

// envdMetrics takes a sample now: CPU use and memory of the whole machine (an idle guest's plus
// the sandbox's processes', from /proc), disk from its files.
func (sb *Machine) envdMetrics() envdMetricsJSON {
	sb.TakeSample()
	samples := sb.SamplesCopy()
	last := samples[len(samples)-1]
	return envdMetricsJSON{
		TS: time.Now().Unix(), CPUCount: last.CPUCount, CPUPossible: last.CPUCount, CPUUsedPct: last.CPUPct,
		MemTotal: last.MemTotal, MemUsed: last.MemUsed, DiskUsed: last.DiskUsed, DiskTotal: DiskTotalBytes,
	}
}

// knownUsers are the users of E2B's standard templates. The files API puts
// their relative paths in their homes; commands and files take the named
// user's IDs from the sandbox's /etc (users.go).
var knownUsers = map[string]bool{"user": true, "root": true}

// checkEnvdUser validates the username query (REST) or Basic auth user (RPC).
func checkEnvdUser(r *http.Request) (int, string) {
	if u := r.URL.Query().Get("username"); u != "" && !knownUsers[u] {
		return http.StatusUnauthorized, fmt.Sprintf("error looking up user '%s': user: unknown user %s", u, u)
	}
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "Basic ") {
		return 0, ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
	if err != nil {
		return http.StatusUnauthorized, "invalid authorization header"
	}
	u, _, _ := strings.Cut(string(raw), ":")
	if u != "" && !knownUsers[u] {
		return http.StatusUnauthorized, fmt.Sprintf("invalid username: '%s'", u)
	}
	return 0, ""
}

func writeError(w http.ResponseWriter, status int, msg string) { httpjson.Error(w, status, msg) }

func writeErrorf(w http.ResponseWriter, status int, format string, args ...any) {
	httpjson.Errorf(w, status, format, args...)
}
