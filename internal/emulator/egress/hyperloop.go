package egress

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
)

// E2B runs a "hyperloop" server beside every sandbox (spec/openapi-hyperloop.yml of
// e2b-dev/infra): a VM reaches it at HyperloopIP, port 80, which envd also names HyperloopHost
// in the VM's /etc/hosts and gives processes as E2B_EVENTS_ADDRESS, and it knows the calling
// sandbox by the VM's source address. Emulated sandboxes share the host's network, where
// HyperloopIP leads nowhere, and the emulator leaves the host's network alone; so the egress
// proxy, which every sandbox process already uses, answers plain-HTTP requests for these two
// hosts itself, knowing the sandbox by its proxy credentials. Such a request never leaves the
// proxy, and the sandbox's allowOut, denyOut and egressProxy do not apply to it: E2B's
// hyperloop is reachable with the internet blocked.
const (
	HyperloopIP   = "192.0.2.1"
	HyperloopHost = "events.e2b.local"
)

// maxHyperloopBody bounds what POST /logs reads (E2B's server limits uploads to 256 MiB; a
// log line is small, and the emulator keeps nothing of it).
const maxHyperloopBody = 1 << 20

// isHyperloop reports whether host (a request's host name, without port) names the hyperloop.
func isHyperloop(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == HyperloopIP || host == HyperloopHost
}

// hyperloopError is E2B's API error body, {"code", "message"}.
func hyperloopError(w http.ResponseWriter, code int, message string) {
	hyperloopJSON(w, code, map[string]any{"code": code, "message": message})
}

// hyperloopJSON writes v as gin's c.JSON does (no trailing newline).
func hyperloopJSON(w http.ResponseWriter, code int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// hyperloopText writes msg as gin's c.String does, which E2B's spec validator answers with.
func hyperloopText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg)
}

// serveHyperloop answers a sandbox's request to the hyperloop as E2B's server does. Only port
// 80 listens there; any other port is refused as a closed port is, without dialling.
func serveHyperloop(w http.ResponseWriter, r *http.Request, sandboxID string) {
	if port := r.URL.Port(); port != "" && port != "80" {
		http.Error(w, "egress: dial tcp "+net.JoinHostPort(HyperloopIP, port)+": connect: connection refused", http.StatusBadGateway)
		return
	}
	switch {
	case r.URL.Path == "/me" && r.Method == http.MethodGet:
		hyperloopJSON(w, http.StatusOK, map[string]string{"sandboxID": sandboxID})
	case r.URL.Path == "/logs" && r.Method == http.MethodPost:
		hyperloopLogs(w, r, sandboxID)
	case r.URL.Path == "/me" || r.URL.Path == "/logs":
		// E2B's server validates every request against its spec first, answering in plain text.
		hyperloopText(w, http.StatusBadRequest, "method not allowed")
	default:
		hyperloopText(w, http.StatusBadRequest, "no matching operation was found")
	}
}

// hyperloopLogs checks a log entry as E2B's POST /logs does (a JSON object whose instanceID is
// the calling sandbox's, so that one sandbox cannot write into another's logs) and answers 200.
// E2B then forwards it to its log collector; the emulator keeps nothing of it.
func hyperloopLogs(w http.ResponseWriter, r *http.Request, sandboxID string) {
	var payload map[string]any
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHyperloopBody+1))
	if err != nil || len(body) > maxHyperloopBody || json.Unmarshal(body, &payload) != nil || payload == nil {
		hyperloopError(w, http.StatusBadRequest, "Invalid body for logs")
		return
	}
	if id, ok := payload["instanceID"].(string); !ok || id != sandboxID {
		hyperloopError(w, http.StatusBadRequest, "Invalid sandboxID in logs payload")
		return
	}
	w.WriteHeader(http.StatusOK)
}
