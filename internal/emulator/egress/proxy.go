package egress

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Policy is what the proxy applies to one sandbox's traffic.
type Policy struct {
	AllowOut, DenyOut []string
	Rules             map[string][]Rule
	Proxy             *Proxy
	Lookup            Lookup
}

// Server is a running egress proxy.
type Server struct {
	policy    func(sandboxID, token string) (*Policy, bool)
	ln        net.Listener
	http      *http.Server
	transport *http.Transport
}

// Start listens on loopback and proxies until Close. policy gives a sandbox's settings from
// the proxy credentials its processes send (false for credentials that name no sandbox).
func Start(policy func(sandboxID, token string) (*Policy, bool), logf func(format string, args ...any)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Server{policy: policy, ln: ln, transport: &http.Transport{
		Proxy: nil, DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
		MaxIdleConns: 16, IdleConnTimeout: 30 * time.Second,
	}}
	p.http = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		if err := p.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("emulator: serve: %v", err)
		}
	}()
	return p, nil
}

// URL is the proxy's address, without credentials.
func (p *Server) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops accepting; open CONNECT tunnels end with their peers.
func (p *Server) Close() {
	_ = p.http.Close()
	p.transport.CloseIdleConnections()
}

// Env is what every process of a sandbox gets (request envs may override): the proxy, with the
// sandbox's ID and egress token as its credentials.
func (p *Server) Env(sandboxID, token string) map[string]string {
	u := url.URL{Scheme: "http", User: url.UserPassword(sandboxID, token), Host: p.ln.Addr().String()}
	s := u.String()
	return map[string]string{"HTTP_PROXY": s, "http_proxy": s, "HTTPS_PROXY": s, "https_proxy": s}
}

func (p *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sandboxID, pol, ok := p.sandboxPolicy(r)
	if !ok {
		w.Header().Set("Proxy-Authenticate", `Basic realm="e2b-egress"`)
		http.Error(w, "egress: the proxy credentials name no sandbox", http.StatusProxyAuthRequired)
		return
	}
	if r.Method == http.MethodConnect {
		if host, port, _ := net.SplitHostPort(r.Host); isHyperloop(host) {
			// Only plain HTTP on port 80 reaches the hyperloop (hyperloop.go).
			http.Error(w, "egress: dial tcp "+net.JoinHostPort(HyperloopIP, port)+": connect: connection refused", http.StatusBadGateway)
			return
		}
		p.tunnel(w, r, pol)
		return
	}
	if r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "") {
		http.Error(w, "the egress proxy forwards absolute http:// URLs only", http.StatusBadRequest)
		return
	}
	if isHyperloop(r.URL.Hostname()) {
		serveHyperloop(w, r, sandboxID)
		return
	}
	if msg := admit(r.Context(), pol, r.URL.Hostname()); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme = "http"
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	if err := Apply(Match(pol.Rules, r.URL.Hostname()), out.Header.Set, pol.Lookup); err != nil {
		http.Error(w, "egress: network rule for "+r.URL.Hostname()+": "+err.Error(), http.StatusBadGateway)
		return
	}
	transport := p.transport
	if pol.Proxy != nil {
		proxy := *pol.Proxy
		transport = &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return DialSOCKS5(ctx, proxy, addr)
		}}
	}
	resp, err := transport.RoundTrip(out)
	if err != nil {
		http.Error(w, "egress: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vals := range resp.Header {
		for _, v := range vals {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// sandboxPolicy reads the proxy credentials, which must name a running sandbox: the proxy
// serves sandboxes only, never a process on the host that found its address.
func (p *Server) sandboxPolicy(r *http.Request) (string, *Policy, bool) {
	raw, ok := strings.CutPrefix(r.Header.Get("Proxy-Authorization"), "Basic ")
	if !ok {
		return "", nil, false
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return "", nil, false
	}
	id, token, _ := strings.Cut(string(b), ":")
	pol, ok := p.policy(id, token)
	return id, pol, ok
}

// admit says why a destination is refused ("" when it is admitted).
func admit(ctx context.Context, pol *Policy, host string) string {
	if len(pol.AllowOut) == 0 && len(pol.DenyOut) == 0 {
		return ""
	}
	var addr netip.Addr
	if _, err := netip.ParseAddr(host); err != nil {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if addrs, err := net.DefaultResolver.LookupNetIP(lctx, "ip", host); err == nil && len(addrs) > 0 {
			addr = addrs[0].Unmap()
		}
		cancel()
	}
	if Admits(pol.AllowOut, pol.DenyOut, host, addr) {
		return ""
	}
	return fmt.Sprintf("egress: %s is not allowed by the sandbox's network settings (allowOut %v, denyOut %v)", host, pol.AllowOut, pol.DenyOut)
}

// tunnel relays a CONNECT stream unchanged (HTTPS is not intercepted), through the sandbox's
// SOCKS5 proxy when it has one.
func (p *Server) tunnel(w http.ResponseWriter, r *http.Request, pol *Policy) {
	host, _, _ := net.SplitHostPort(r.Host)
	if msg := admit(r.Context(), pol, host); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	var up net.Conn
	var err error
	if pol.Proxy != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		up, err = DialSOCKS5(ctx, *pol.Proxy, r.Host)
		cancel()
	} else {
		up, err = net.DialTimeout("tcp", r.Host, 30*time.Second)
	}
	if err != nil {
		http.Error(w, "egress: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "egress: tunnelling unsupported", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		_, _ = io.Copy(up, buf)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}()
	go func() {
		_, _ = io.Copy(conn, up)
		_ = conn.Close()
		_ = up.Close()
	}()
}
