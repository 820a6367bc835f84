package e2b

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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
	for k := range q {
		if secretQueryParams[strings.ToLower(k)] {
			q.Set(k, redacted)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// secretQueryParams are query parameters that carry credentials: envd's file
// signatures, and the signed upload URLs of storage services that template
// files go to (Google Cloud Storage, S3, Azure).
var secretQueryParams = map[string]bool{
	"signature": true, "signature_expiration": true,
	"x-goog-signature": true, "x-goog-credential": true,
	"x-amz-signature": true, "x-amz-credential": true, "x-amz-security-token": true,
	"sig": true,
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

// apiRateTransport makes every control-plane attempt wait its turn within
// E2B's API rate (20,000 requests per 30 s per team, answered 429 "Rate
// limit exceeded" past it). The turns are those of a createPacer of its own,
// learning the rate from E2B's refusals as creates do: unpaced until E2B
// refuses one, then spaced at the rate E2B showed. A refused attempt waits
// for Retry-After when E2B asks for more than its minimum of a second.
// Creates are paced by createOnce and skip it.
type apiRateTransport struct {
	next   http.RoundTripper
	pacer  *createPacer
	client *Client
}

func (t *apiRateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := callFrom(req.Context())
	if ci != nil && ci.ownPace {
		return t.next.RoundTrip(req)
	}
	var notBefore time.Time
	if ci != nil {
		notBefore = ci.notBefore
	}
	paced, err := t.pacer.wait(req.Context(), notBefore)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if resp.StatusCode != http.StatusTooManyRequests || atSandboxLimit(resp) {
		t.pacer.admitted(sent, paced)
		return resp, nil
	}
	retryAfter, _ := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	before := t.pacer.Interval()
	t.pacer.throttled(sent, paced, retryAfter)
	if ci != nil {
		if ci.rateRefusals.Add(1) == 1 {
			ci.firstRefusal = sent
		}
		ci.notBefore = time.Time{}
		if retryAfter > time.Second { // E2B sends at least 1 however soon the next may go
			ci.notBefore = sent.Add(retryAfter)
		}
	}
	if after := t.pacer.Interval(); after != before && t.client.cfg.Logger != nil {
		t.client.cfg.Logger.Log(req.Context(), "info", "E2B refused a request for its API rate: API requests are paced", map[string]any{
			"op": opOf(ci), "interval_ms": after.Milliseconds(), "previous_interval_ms": before.Milliseconds(),
		})
	}
	return resp, nil
}

func opOf(ci *callInfo) string {
	if ci == nil {
		return ""
	}
	return ci.op
}
