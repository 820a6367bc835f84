package emulator

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

const envdPort = "49983"

// envdRouteKey names an envd route for counters and faults:
// "envd /process.Process/Start" for RPCs, "envd GET /files" for REST.
func envdRouteKey(r *http.Request) string {
	p := r.URL.Path
	if strings.HasPrefix(p, "/process.Process/") || strings.HasPrefix(p, "/filesystem.Filesystem/") {
		return "envd " + p
	}
	switch p {
	case "/health", "/files", "/files/compose", "/envs", "/metrics":
		return "envd " + r.Method + " " + p
	}
	return "envd unknown"
}

type edgeErrorJSON struct {
	SandboxID string `json:"sandboxId"`
	Message   string `json:"message"`
	Code      int    `json:"code"`
}

// sandboxGone answers like E2B's edge for a paused, killed or unknown sandbox.
func sandboxGone(w http.ResponseWriter, id string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	_ = json.NewEncoder(w).Encode(edgeErrorJSON{SandboxID: id, Message: "The sandbox was not found", Code: http.StatusBadGateway})
}

const unauthorizedEnvd = "unauthorized access, please provide a valid access token or method signing if supported"

func (s *Server) serveEnvd(w http.ResponseWriter, r *http.Request) {
	key := envdRouteKey(r)
	s.mu.Lock()
	s.counters.Requests[key]++
	if r.Header.Get(hdrAPIKey) != "" {
		s.counters.EnvdAPIKeySeen++
	}
	s.mu.Unlock()
	if ok, _ := s.applyFaults(w, r, key, false); !ok {
		return
	}
	id := r.Header.Get(hdrSandboxID)
	var sb *sandbox
	if id == "" {
		if r.URL.Path != "/files" {
			writeError(w, http.StatusBadRequest, "missing E2b-Sandbox-Id header")
			return
		}
		match := s.sandboxBySignature(r)
		if match == nil {
			writeError(w, http.StatusUnauthorized, "invalid signature")
			return
		}
		if sb = s.runningSandbox(match.id); sb == nil {
			sandboxGone(w, match.id)
			return
		}
	} else {
		if port := r.Header.Get(hdrSandboxPort); port != "" && port != envdPort {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_ = json.NewEncoder(w).Encode(map[string]any{
				"sandboxId": id, "message": "The sandbox is running but port is not open", "port": port, "code": http.StatusBadGateway,
			})
			return
		}
		if sb = s.runningSandbox(id); sb == nil {
			sandboxGone(w, id)
			return
		}
	}
	path := r.URL.Path
	if sb.secure && path != "/health" && path != "/files" {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(hdrAccessToken)), []byte(s.accessToken(sb.id))) != 1 {
			writeError(w, http.StatusUnauthorized, unauthorizedEnvd)
			return
		}
	}
	if path != "/health" {
		if status, msg := checkEnvdUser(r); status != 0 {
			writeError(w, status, msg)
			return
		}
	}
	switch {
	case path == "/health":
		w.WriteHeader(http.StatusNoContent)
	case path == "/files":
		s.serveFiles(w, r, sb)
	case path == "/files/compose" && r.Method == http.MethodPost:
		s.composeFiles(w, r, sb)
	case path == "/envs" && r.Method == http.MethodGet:
		s.mu.Lock()
		envs := copyMap(sb.envVars)
		s.mu.Unlock()
		w.Header().Set("Cache-Control", "no-store")
		httpjson.Write(w, http.StatusOK, envs)
	case path == "/metrics" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, sb.envdMetrics())
	case strings.HasPrefix(path, "/process.Process/") && r.Method == http.MethodPost:
		s.serveProcessRPC(w, r, sb, strings.TrimPrefix(path, "/process.Process/"))
	case strings.HasPrefix(path, "/filesystem.Filesystem/") && r.Method == http.MethodPost:
		s.serveFilesystemRPC(w, r, sb, strings.TrimPrefix(path, "/filesystem.Filesystem/"))
	default:
		http.NotFound(w, r) // envd's router answers unknown paths in plain text
	}
}

// runningSandbox returns the sandbox when it can serve envd traffic,
// resuming a paused one that has autoResume.
func (s *Server) runningSandbox(id string) *sandbox {
	s.mu.Lock()
	sb := s.sandboxes[id]
	if sb == nil {
		s.mu.Unlock()
		return nil
	}
	if sb.state == statePaused {
		if !sb.autoResume || !sb.pausedByMemory {
			s.mu.Unlock()
			return nil
		}
		s.resumeLocked(sb, sb.resumeTimeout)
		s.mu.Unlock()
		sb.addLog("info", "Sandbox auto-resumed by traffic", nil)
		return sb
	}
	s.mu.Unlock()
	return sb
}

type envdMetricsJSON struct {
	TS          int64   `json:"ts"`
	CPUCount    int     `json:"cpu_count"`
	CPUUsedPct  float64 `json:"cpu_used_pct"`
	MemTotal    int64   `json:"mem_total"`
	MemUsed     int64   `json:"mem_used"`
	MemCache    int64   `json:"mem_cache"`
	MemTotalMiB int64   `json:"mem_total_mib"`
	MemUsedMiB  int64   `json:"mem_used_mib"`
	DiskUsed    int64   `json:"disk_used"`
	DiskTotal   int64   `json:"disk_total"`
}

func (sb *sandbox) envdMetrics() envdMetricsJSON {
	sb.takeSample()
	samples := sb.samplesCopy()
	last := samples[len(samples)-1]
	return envdMetricsJSON{
		TS: time.Now().Unix(), CPUCount: defaultCPUCount, CPUUsedPct: last.cpuPct,
		MemTotal: memTotalBytes, MemUsed: last.memUsed, MemTotalMiB: memTotalBytes >> 20, MemUsedMiB: last.memUsed >> 20,
		DiskUsed: last.diskUsed, DiskTotal: diskTotalBytes,
	}
}

// knownUsers are the users of E2B's standard templates. The files API puts
// their relative paths in their homes (users.go); commands run as the
// emulator's own user whichever is named.
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
