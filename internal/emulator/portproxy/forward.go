package portproxy

import (
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"
)

// MaskPortPlaceholder is what network.maskRequestHost writes for the port the request is for.
const MaskPortPlaceholder = "${PORT}"

// Forwarder forwards requests to ports of sandboxes, which share the host's network.
type Forwarder struct {
	transport *http.Transport
}

// NewForwarder returns a forwarder. It keeps no connection idle: a sandbox's server may
// restart, and the next sandbox may listen on the same port.
func NewForwarder() *Forwarder {
	return &Forwarder{transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		DisableKeepAlives:     true,
		ResponseHeaderTimeout: 0, // a sandbox's server may take its time, as on E2B
	}}
}

// Forward sends r to port t.Port of the sandbox and relays the answer. maskHost, when set,
// replaces the Host header (${PORT} becomes the port); the API key is never passed on. When
// nothing listens on the port, the answer is E2B's 502 "port is not open".
func (f *Forwarder) Forward(w http.ResponseWriter, r *http.Request, t Target, maskHost string) {
	host := r.Host
	if maskHost != "" {
		host = strings.ReplaceAll(maskHost, MaskPortPlaceholder, strconv.FormatUint(t.Port, 10))
	}
	p := &httputil.ReverseProxy{
		Transport: f.transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = net.JoinHostPort("127.0.0.1", strconv.FormatUint(t.Port, 10))
			pr.Out.Host = host
			pr.Out.Header.Del("X-API-Key")
			pr.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, _ error) {
			PortClosed(t.SandboxID, r.Host, t.Port).Write(w, r)
		},
	}
	p.ServeHTTP(w, r)
}
