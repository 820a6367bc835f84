package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
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

func (s *Server) serveEnvd(w http.ResponseWriter, r *http.Request) {
	key := envdRouteKey(r)
	apiKey := r.Header.Get(hdrAPIKey) != ""
	s.counters.add(func(c *Counters) {
		c.Requests[key]++
		if apiKey {
			c.EnvdAPIKeySeen++
		}
	})
	if ok, _ := s.applyFaults(w, r, key, false); !ok {
		return
	}
	id := r.Header.Get(hdrSandboxID)
	if id == "" {
		if r.URL.Path != "/files" {
			writeError(w, http.StatusBadRequest, "missing E2b-Sandbox-Id header")
			return
		}
		var found bool
		if id, found = s.cp.Sandboxes().BySignature(r); !found {
			writeError(w, http.StatusUnauthorized, "invalid signature")
			return
		}
	} else if port := r.Header.Get(hdrSandboxPort); port != "" && port != envdPort {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"sandboxId": id, "message": "The sandbox is running but port is not open", "port": port, "code": http.StatusBadGateway,
		})
		return
	}
	m, resumed := s.cp.Sandboxes().AutoResume(id)
	if m == nil {
		sandboxGone(w, id)
		return
	}
	if resumed {
		m.AddLog("info", "Sandbox auto-resumed by traffic", nil)
	}
	m.Serve(w, r)
}
