package portproxy

import (
	"net/http"
	"path"
	"strconv"
	"strings"
)

// EnvdPort is the port of envd in every sandbox; the proxy treats it apart (no traffic token,
// the control plane's reserved routes).
const EnvdPort = 49983

// Headers an SDK sends to a sandbox URL in place of the host name.
const (
	HeaderSandboxID   = "E2b-Sandbox-Id"
	HeaderSandboxPort = "E2b-Sandbox-Port"
	// HeaderTrafficToken carries a sandbox's traffic access token (network.allowPublicTraffic false).
	HeaderTrafficToken = "E2b-Traffic-Access-Token"
	// HeaderEnvdToken is envd's access token, which also lets envd traffic resume a secure sandbox.
	HeaderEnvdToken = "X-Access-Token"
)

// Target is the sandbox and port a request is for.
type Target struct {
	SandboxID string
	Port      uint64
}

// TargetOf reads the sandbox and port from the E2b-Sandbox-Id header (with E2b-Sandbox-Port,
// envd's port when absent) or else from a host name "<port>-<sandbox id>[-<client id>].<domain>",
// as E2B's proxy reads it. ok is false when the request names no sandbox.
func TargetOf(r *http.Request) (Target, bool) {
	if id := r.Header.Get(HeaderSandboxID); id != "" {
		port := uint64(EnvdPort)
		if p := r.Header.Get(HeaderSandboxPort); p != "" {
			n, err := strconv.ParseUint(p, 10, 16)
			if err != nil {
				return Target{}, false
			}
			port = n
		}
		return Target{SandboxID: id, Port: port}, true
	}
	return targetOfHost(r.Host)
}

func targetOfHost(host string) (Target, bool) {
	label, _, found := strings.Cut(host, ".")
	if !found {
		return Target{}, false
	}
	parts := strings.Split(label, "-")
	if len(parts) < 2 || parts[1] == "" {
		return Target{}, false
	}
	port, err := strconv.ParseUint(parts[0], 10, 16)
	if err != nil || port == 0 {
		return Target{}, false
	}
	for _, c := range parts[1] {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return Target{}, false
		}
	}
	return Target{SandboxID: parts[1], Port: port}, true
}

// reservedEnvdRoutes are envd's routes only E2B's control plane may call (envd's spec marks
// them x-internal, and /upgrade besides); E2B's proxy answers them 404 on the envd port.
var reservedEnvdRoutes = map[string]bool{
	"/collapse": true, "/freeze": true, "/fsfreeze": true, "/fsthaw": true, "/init": true,
	"/unfreeze": true, "/upgrade": true,
}

// ReservedRoute reports whether a request to envd's port addresses a route E2B keeps for its
// control plane, whatever the method (a 405 would tell the route exists), with the path
// cleaned as E2B cleans it (so /init/ and /files/../init are refused too).
func ReservedRoute(t Target, r *http.Request) bool {
	return t.Port == EnvdPort && reservedEnvdRoutes[path.Clean("/"+r.URL.Path)]
}
