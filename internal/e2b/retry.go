package e2b

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryClass says which failures of a call may be retried.
type retryClass int

const (
	// retryRateLimited retries only 429: the request was not processed.
	retryRateLimited retryClass = iota
	// retryIdempotent also retries 5xx and connection errors.
	retryIdempotent
	// retryRejected retries 429 and 5xx answers but not connection errors:
	// an answer with an error status means nothing was done, while a lost
	// connection leaves the outcome unknown (Process/Start: a Connect stream
	// that started a process always answers 200).
	retryRejected
	// retryNever retries nothing (non-replayable bodies).
	retryNever
)

// callInfo travels in the request context so that the retry policy, the
// per-attempt timeout and the logger know which call an attempt belongs to.
type callInfo struct {
	op        string
	sandboxID string
	class     retryClass
	envd      bool
	timeout   timeoutMode
	ownPace   bool // paced by its caller (creates), not by the API rate's turns
	attempts  atomic.Int32
	// Refusals for E2B's API rate (429 but the concurrency cap): retried in
	// turns of the team's apiPacer until the context ends, not counted
	// against max_retries. Attempts of one call run one after another.
	rateRefusals atomic.Int32
	firstRefusal time.Time
	notBefore    time.Time // a Retry-After above E2B's minimum of 1 s
}

// timeoutMode says what Config.RequestTimeout bounds for one attempt.
type timeoutMode int

const (
	// timeoutWhole bounds the attempt including reading the body (unary calls).
	timeoutWhole timeoutMode = iota
	// timeoutHeaders bounds only the wait for response headers (streams).
	timeoutHeaders
	// timeoutNone applies no per-attempt bound (uploads: the server answers
	// after the whole body arrived).
	timeoutNone
)

type callKey struct{}

func withCall(ctx context.Context, ci *callInfo) context.Context {
	return context.WithValue(ctx, callKey{}, ci)
}

func callFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
}

func (c *Client) newRetryClient(base *http.Client, envd bool) *retryablehttp.Client {
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	rt = &attemptTimeoutTransport{next: identityEncoding{next: rt}, timeout: c.cfg.RequestTimeout}
	if envd {
		rt = stripAPIKeyTransport{next: rt}
	}
	rt = &loggingTransport{next: rt, logger: c.cfg.Logger}
	if !envd {
		rt = &apiRateTransport{next: rt, pacer: c.limits.api, client: c}
	}
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{
		Transport:     rt,
		CheckRedirect: refuseRedirect,
		Jar:           base.Jar,
		// No client-wide timeout: it would cut long streams. Unary calls get
		// a per-attempt deadline from attemptTimeoutTransport instead.
	}
	rc.Logger = nil
	rc.RetryMax = c.retryMax
	if !envd {
		// Refusals for E2B's API rate are retried until the context ends;
		// checkRetry counts the other retries against max_retries itself.
		rc.RetryMax = math.MaxInt32
	}
	rc.RetryWaitMin = c.cfg.RetryWaitMin
	rc.RetryWaitMax = c.cfg.RetryWaitMax
	rc.CheckRetry = checkRetry(envd, c.retryMax)
	rc.Backoff = backoff
	rc.ErrorHandler = lastAnswerOrError
	return rc
}

// refuseRedirect hands a redirect back as the answer instead of following it:
// E2B's API and envd never redirect, and following would send the API key or
// an access token to wherever the redirect points.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// lastAnswerOrError hands back the last answer when the retries ran out, so
// callers see its status. A response that comes with an error (the context
// ended after it arrived) is closed here: callers only look at the error.
func lastAnswerOrError(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			_ = resp.Body.Close()
		}
		return nil, err
	}
	return resp, nil
}

// rateRetryBound ends the retries of a call that E2B keeps refusing for its
// API rate when the caller's context has no deadline of its own.
const rateRetryBound = createThrottleBound

// checkRetry implements the per-call policy described in doc.go. On the
// control plane (not envd) a refusal for E2B's API rate is retried, in the
// turns of the team's apiPacer, until the context ends (or rateRetryBound),
// and max_retries (retryMax) counts the other retries only.
func checkRetry(envd bool, retryMax int) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		ci := callFrom(ctx)
		if !envd && err == nil && ci != nil && resp.StatusCode == http.StatusTooManyRequests && ci.class != retryNever {
			if atSandboxLimit(resp) {
				return false, nil // no retry frees a place at the concurrency cap
			}
			return time.Since(ci.firstRefusal) < rateRetryBound, nil
		}
		retry, rerr := checkRetryOnce(ctx, ci, envd, resp, err)
		if retry && !envd && ci != nil && int(ci.attempts.Load()-ci.rateRefusals.Load()) > retryMax {
			return false, rerr
		}
		return retry, rerr
	}
}

// checkRetryOnce says whether one failed attempt may be retried.
func checkRetryOnce(ctx context.Context, ci *callInfo, envd bool, resp *http.Response, err error) (bool, error) {
	class := retryRateLimited
	if ci != nil {
		class = ci.class
	}
	if class == retryNever {
		return false, err
	}
	if err != nil {
		if class != retryIdempotent {
			return false, err
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	// retryIdempotent and retryRejected agree on answers: they differ
	// only on connection errors, handled above.
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return !atSandboxLimit(resp), nil // no retry frees a place at the concurrency cap
	case class == retryRateLimited:
		return false, nil
	case envd && resp.StatusCode >= 500:
		return envdTransient(resp.StatusCode, peekErrorShape(resp)), nil
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return true, nil
	}
	return false, nil
}

// peekErrorShape reads the start of an error answer to tell who wrote it.
func peekErrorShape(resp *http.Response) bodyShape {
	return parseErrorBody(resp.StatusCode, peekErrorBody(resp)).shape
}

// peekErrorBody reads the start of an error answer (up to maxErrorBody) and
// puts what it read back in front of the body, for the retry policy to look
// at an answer that is still read in full later.
func peekErrorBody(resp *http.Response) []byte {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return head
}

// backoff honors Retry-After (seconds or HTTP date) capped by max, and
// otherwise grows exponentially from min to max. A control-plane refusal for
// E2B's API rate waits in apiRateTransport instead (its turn, and
// Retry-After uncapped).
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests && resp.Request != nil {
		if ci := callFrom(resp.Request.Context()); ci != nil && !ci.envd && ci.rateRefusals.Load() > 0 {
			return 0
		}
	}
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(max(d, lo), hi)
		}
	}
	d := lo
	for i := 0; i < attempt && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
