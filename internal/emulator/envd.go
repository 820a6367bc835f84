package emulator

import (
	"net/http"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/portproxy"
)

// portRouteKey names, for counters and faults, a request to a sandbox port other than envd's.
const portRouteKey = "sandbox port"

// envdRouteKey names an envd route for counters and faults:
// "envd /process.Process/Start" for RPCs, "envd GET /files" for REST.
func envdRouteKey(r *http.Request) string {
	if t, ok := portproxy.TargetOf(r); ok && t.Port != portproxy.EnvdPort {
		return portRouteKey
	}
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

// serveSandbox is the sandbox proxy: envd's port and every other port of a sandbox, named by the
// E2b-Sandbox-Id and E2b-Sandbox-Port headers or by the host name, as E2B's proxy answers them:
// a sandbox that is gone (or paused and not resumed by traffic) first, then the traffic access
// token, then envd itself or the sandbox's server.
func (s *Server) serveSandbox(w http.ResponseWriter, r *http.Request) {
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
	t, ok := portproxy.TargetOf(r)
	switch {
	case !ok && r.Header.Get(hdrSandboxID) != "":
		http.Error(w, "Invalid sandbox port", http.StatusBadRequest)
		return
	case !ok && r.URL.Path != "/files":
		writeError(w, http.StatusBadRequest, "missing E2b-Sandbox-Id header")
		return
	case !ok:
		id, found := s.cp.Sandboxes().BySignature(r)
		if !found {
			writeError(w, http.StatusUnauthorized, "invalid signature")
			return
		}
		t = portproxy.Target{SandboxID: id, Port: portproxy.EnvdPort}
	}
	v := s.cp.Traffic(t.SandboxID, t.Port, controlplane.TrafficTokens{
		Traffic: r.Header.Get(portproxy.HeaderTrafficToken), Envd: r.Header.Get(portproxy.HeaderEnvdToken),
	})
	if refused, ok := refusalAnswer(v, t.SandboxID, r.Host); ok {
		refused.Write(w, r)
		return
	}
	if v.Resumed {
		v.Machine.AddLog("info", "Sandbox auto-resumed by traffic", nil)
	}
	switch {
	case portproxy.ReservedRoute(t, r):
		portproxy.ReservedRouteAnswer(r.Host, r.URL.Path).Write(w, r)
	case t.Port == portproxy.EnvdPort:
		v.Machine.Serve(w, r)
	case !v.Machine.ListensOn(uint16(t.Port)):
		// The host's port, or another sandbox's: not this sandbox's, so closed, as on E2B.
		portproxy.PortClosed(t.SandboxID, r.Host, t.Port).Write(w, r)
	default:
		s.forwarder.Forward(w, r, t, v.MaskHost)
	}
}

// refusalAnswer is the proxy's answer, in E2B's words, when the control plane refuses the
// traffic; false when it lets it through.
func refusalAnswer(v controlplane.Traffic, sandboxID, host string) (portproxy.Answer, bool) {
	switch v.Refusal {
	case controlplane.TrafficSandboxNotFound:
		return portproxy.SandboxNotFound(sandboxID, host), true
	case controlplane.TrafficResumeDenied:
		return portproxy.ResumeDenied(sandboxID, host), true
	case controlplane.TrafficSandboxLimit:
		return portproxy.TeamSandboxLimit(sandboxID, host, v.Message), true
	case controlplane.TrafficTokenMissing:
		return portproxy.TrafficTokenMissing(sandboxID, host), true
	case controlplane.TrafficTokenInvalid:
		return portproxy.TrafficTokenInvalid(sandboxID, host), true
	}
	return portproxy.Answer{}, false
}
