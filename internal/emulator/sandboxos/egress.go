package sandboxos

import (
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// The egress proxy stands in for E2B's egress: sandbox processes get it as
// HTTP_PROXY and HTTPS_PROXY, and it replaces ${e2b.secrets.<name>} markers
// in the headers of plain-HTTP requests with the secret's current value, so
// a process never sees the value while the upstream receives it. HTTPS goes
// through CONNECT as an opaque tunnel: without intercepting TLS its headers
// cannot be read, so markers there are sent as they are.

var secretMarker = regexp.MustCompile(`\$\{e2b\.secrets\.([^{}\s]+)\}`)

// Egress is a running egress proxy.
type Egress struct {
	secret    func(name string) (string, bool) // a secret's current value by name
	ln        net.Listener
	http      *http.Server
	transport *http.Transport
}

// StartEgress listens on loopback and proxies until Close; secret looks up
// the current value of the secret a marker names.
func StartEgress(secret func(name string) (string, bool), logf func(format string, args ...any)) (*Egress, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Egress{secret: secret, ln: ln, transport: &http.Transport{
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

// URL is what sandbox processes get as their proxy.
func (p *Egress) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops accepting; open CONNECT tunnels end with their peers.
func (p *Egress) Close() {
	_ = p.http.Close()
	p.transport.CloseIdleConnections()
}

func (p *Egress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "") {
		http.Error(w, "the egress proxy forwards absolute http:// URLs only", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme = "http"
	for k, vals := range out.Header {
		for i, v := range vals {
			resolved, missing := p.substitute(v)
			if missing != "" {
				http.Error(w, "secret '"+missing+"' referenced in header "+k+" does not exist", http.StatusBadRequest)
				return
			}
			vals[i] = resolved
		}
	}
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := p.transport.RoundTrip(out)
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

// substitute replaces every marker in v; it names the first unknown secret.
func (p *Egress) substitute(v string) (string, string) {
	if !strings.Contains(v, "${e2b.secrets.") {
		return v, ""
	}
	missing := ""
	out := secretMarker.ReplaceAllStringFunc(v, func(m string) string {
		name := secretMarker.FindStringSubmatch(m)[1]
		val, ok := p.secret(name)
		if !ok && missing == "" {
			missing = name
		}
		return val
	})
	return out, missing
}

// tunnel relays a CONNECT stream unchanged (HTTPS is not intercepted).
func (p *Egress) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := net.DialTimeout("tcp", r.Host, 30*time.Second)
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
		_ = up.(*net.TCPConn).CloseWrite()
	}()
	go func() {
		_, _ = io.Copy(conn, up)
		_ = conn.Close()
		_ = up.Close()
	}()
}

// Env is what every sandbox process gets (request envs may override).
func (p *Egress) Env() map[string]string {
	u := p.URL()
	return map[string]string{"HTTP_PROXY": u, "http_proxy": u, "HTTPS_PROXY": u, "https_proxy": u}
}
