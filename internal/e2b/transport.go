package e2b

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// attemptTimeoutTransport bounds one attempt. For unary calls the deadline
// covers reading the body too; for streams only the wait for headers. The
// context is released when the body is closed.
type attemptTimeoutTransport struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (t *attemptTimeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := callFrom(req.Context())
	if ci == nil || ci.timeout == timeoutNone || t.timeout <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	timer := time.AfterFunc(t.timeout, cancel)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		if !timer.Stop() {
			err = fmt.Errorf("no answer within %s: %w", t.timeout, err)
		}
		cancel()
		return nil, err
	}
	if ci.timeout == timeoutHeaders && !timer.Stop() {
		// The timer fired just as the headers arrived: the body is already canceled.
		_ = resp.Body.Close()
		cancel()
		return nil, context.DeadlineExceeded
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { timer.Stop(); cancel() }}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// stripAPIKeyTransport guarantees that the API key never reaches envd, even
// if a caller-supplied transport or header map carried it.
type stripAPIKeyTransport struct{ next http.RoundTripper }

func (t stripAPIKeyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("X-API-Key") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("X-API-Key")
	}
	return t.next.RoundTrip(req)
}

// loggingTransport reports every attempt to the configured Logger with
// secrets redacted.
type loggingTransport struct {
	next   http.RoundTripper
	logger Logger
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := callFrom(req.Context())
	attempt := int32(1)
	if ci != nil {
		attempt = ci.attempts.Add(1)
	}
	if t.logger == nil {
		return t.next.RoundTrip(req)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"url":         RedactURL(req.URL),
		"attempt":     attempt,
		"duration_ms": time.Since(start).Milliseconds(),
		"headers":     RedactHeaders(req.Header),
	}
	if ci != nil {
		fields["op"] = ci.op
		if ci.sandboxID != "" {
			fields["sandbox_id"] = ci.sandboxID
		}
	}
	level, msg := "debug", "E2B HTTP request"
	if err != nil {
		level = "warn"
		fields["error"] = err.Error()
	} else {
		fields["status"] = resp.StatusCode
		if resp.StatusCode >= 400 {
			level = "warn"
		}
	}
	t.logger.Log(req.Context(), level, msg, fields)
	return resp, err
}

const redacted = "REDACTED"

var secretHeaders = []string{"X-Api-Key", "X-Access-Token", "Authorization", "E2b-Traffic-Access-Token"}

// RedactHeaders returns a flat copy of h with secret values replaced.
func RedactHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	for _, s := range secretHeaders {
		for k := range out {
			if http.CanonicalHeaderKey(k) == s {
				out[k] = redacted
			}
		}
	}
	return out
}

// RedactURL returns u as a string with its credentials replaced: the user
// information (user:password@) and the signature query parameters.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		c.User = url.User(redacted)
	}
	q := c.Query()
	changed := false
	for _, k := range []string{"signature", "signature_expiration"} {
		if q.Has(k) {
			q.Set(k, redacted)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// RedactURLString is RedactURL for a URL given as text; text that does not
// parse is replaced whole, since it may hold anything.
func RedactURLString(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redacted
	}
	return RedactURL(u)
}
