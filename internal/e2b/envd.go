package e2b

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// EnvdTarget addresses envd in one sandbox.
type EnvdTarget struct {
	SandboxID   string
	AccessToken string // envdAccessToken of a secure sandbox
	Domain      string // sandbox domain; "" -> the client's
	User        string // run as this user; "" -> envd's default user
}

// Envd is a client for envd inside one sandbox. It never sends the API key.
type Envd struct {
	c    *Client
	t    EnvdTarget
	base string
}

// Envd returns a client for the sandbox's envd. With Config.SandboxURL set
// every request goes to that URL and is routed by headers; otherwise to
// https://49983-<id>.<domain>.
func (c *Client) Envd(t EnvdTarget) *Envd {
	base := ""
	if c.sandboxURL != nil {
		base = c.sandboxURL.String()
	} else {
		domain := t.Domain
		if domain == "" {
			domain = c.cfg.Domain
		}
		base = fmt.Sprintf("https://%d-%s.%s", envdPort, t.SandboxID, domain)
	}
	return &Envd{c: c, t: t, base: strings.TrimRight(base, "/")}
}

// SandboxID is the sandbox this client talks to.
func (e *Envd) SandboxID() string { return e.t.SandboxID }

// BaseURL is the URL envd requests go to.
func (e *Envd) BaseURL() string { return e.base }

// setHeaders adds routing, auth and identification headers; rpc adds the
// Basic user header used by Connect RPCs (REST /files takes ?username=).
func (e *Envd) setHeaders(h http.Header, rpc bool) {
	h.Set("E2b-Sandbox-Id", e.t.SandboxID)
	h.Set("E2b-Sandbox-Port", strconv.Itoa(envdPort))
	h.Set("User-Agent", e.c.userAgent)
	if e.t.AccessToken != "" {
		h.Set("X-Access-Token", e.t.AccessToken)
	}
	if rpc && e.t.User != "" {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(e.t.User+":")))
	}
}

func (e *Envd) call(op string, class retryClass, mode timeoutMode) *callInfo {
	return &callInfo{op: op, sandboxID: e.t.SandboxID, class: class, envd: true, timeout: mode}
}

// Health reports whether envd answers: 204 (any 2xx) → true, 502 → false.
func (e *Envd) Health(ctx context.Context) (bool, error) {
	const op = "envd health"
	req, err := newGet(withCall(ctx, e.call(op, retryIdempotent, timeoutWhole)), e.base+"/health")
	if err != nil {
		return false, err
	}
	e.setHeaders(req.Header, false)
	resp, err := e.c.envd.Do(req)
	if err != nil {
		return false, requestError(ctx, op, e.t.SandboxID, err)
	}
	defer drainClose(resp.Body)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return true, nil
	}
	ae := envdError(op, e.t.SandboxID, "", resp)
	if ae.notRunning {
		return false, nil
	}
	return false, ae
}
