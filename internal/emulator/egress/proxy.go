package sandboxos

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

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/netrules"
)

// The egress proxy stands in for E2B's egress. Sandbox processes get it as HTTP_PROXY and
// HTTPS_PROXY, with their sandbox's ID and an egress token as the proxy's user and password, so
// the proxy knows whose network settings apply; a request without them, or with credentials
// that name no running sandbox, is refused (407):
//   - allowOut and denyOut decide which destinations it admits (403 otherwise);
//   - the sandbox's network rules set their headers on plain-HTTP requests to the rule's domain,
//     with ${e2b.secrets.<name>} and ${e2b.identity.tokens.<name>} filled per request;
//   - with an egress proxy configured, every connection it makes goes through that SOCKS5 proxy.
//
// Nothing else is filled: a placeholder a process writes into its own request is sent on as
// written, as E2B fills placeholders only where a rule puts them. HTTPS goes through CONNECT as
// an opaque tunnel: without intercepting TLS its headers cannot be read or set, so rules do not
// apply to it here (E2B's egress does apply them).

// EgressPolicy is what the proxy applies to one sandbox's traffic.
type EgressPolicy struct {
	AllowOut, DenyOut []string
	Rules             map[string][]netrules.Rule
	Proxy             *netrules.Proxy
	Lookup            netrules.Lookup
}

// Egress is a running egress proxy.
type Egress struct {
	policy    func(sandboxID, token string) (*EgressPolicy, bool)
	ln        net.Listener
	http      *http.Server
	transport *http.Transport
}

// StartEgress listens on loopback and proxies until Close. policy gives a sandbox's settings from
// the proxy credentials its processes send (false for credentials that name no sandbox).
func StartEgress(policy func(sandboxID, token string) (*EgressPolicy, bool), logf func(format string, args ...any)) (*Egress, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Egress{policy: policy, ln: ln, transport: &http.Transport{
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
func (p *Egress) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops accepting; open CONNECT tunnels end with their peers.
func (p *Egress) Close() {
	_ = p.http.Close()
	p.transport.CloseIdleConnections()
}

// Env is what every process of a sandbox gets (request envs may override): the proxy, with the
// sandbox's ID and egress token as its credentials.
func (p *Egress) Env(sandboxID, token string) map[string]string {
	u := url.URL{Scheme: "http", User: url.UserPassword(sandboxID, token), Host: p.ln.Addr().String()}
	s := u.String()
	return map[string]string{"HTTP_PROXY": s, "http_proxy": s, "HTTPS_PROXY": s, "https_proxy": s}
}

func (p *Egress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pol, ok := p.sandboxPolicy(r)
	if !ok {
		w.Header().Set("Proxy-Authenticate", `Basic realm="e2b-egress"`)
		http.Error(w, "egress: the proxy credentials name no sandbox", http.StatusProxyAuthRequired)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, pol)
		return
	}
	if r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "") {
		http.Error(w, "the egress proxy forwards absolute http:// URLs only", http.StatusBadRequest)
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
	if err := netrules.Apply(netrules.Match(pol.Rules, r.URL.Hostname()), out.Header.Set, pol.Lookup); err != nil {
		http.Error(w, "egress: network rule for "+r.URL.Hostname()+": "+err.Error(), http.StatusBadGateway)
		return
	}
	transport := p.transport
	if pol.Proxy != nil {
		proxy := *pol.Proxy
		transport = &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return netrules.DialSOCKS5(ctx, proxy, addr)
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
func (p *Egress) sandboxPolicy(r *http.Request) (*EgressPolicy, bool) {
	raw, ok := strings.CutPrefix(r.Header.Get("Proxy-Authorization"), "Basic ")
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, false
	}
	id, token, _ := strings.Cut(string(b), ":")
	return p.policy(id, token)
}

// admit says why a destination is refused ("" when it is admitted).
func admit(ctx context.Context, pol *EgressPolicy, host string) string {
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
	if netrules.Admits(pol.AllowOut, pol.DenyOut, host, addr) {
		return ""
	}
	return fmt.Sprintf("egress: %s is not allowed by the sandbox's network settings (allowOut %v, denyOut %v)", host, pol.AllowOut, pol.DenyOut)
}

// tunnel relays a CONNECT stream unchanged (HTTPS is not intercepted), through the sandbox's
// SOCKS5 proxy when it has one.
func (p *Egress) tunnel(w http.ResponseWriter, r *http.Request, pol *EgressPolicy) {
	host, _, _ := net.SplitHostPort(r.Host)
	if msg := admit(r.Context(), pol, host); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	var up net.Conn
	var err error
	if pol.Proxy != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		up, err = netrules.DialSOCKS5(ctx, *pol.Proxy, r.Host)
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
