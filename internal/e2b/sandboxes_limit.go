package e2b

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const (
	// DefaultSandboxLimitWait is how long a start refused at the team's
	// concurrent-sandbox limit waits for places this process frees.
	DefaultSandboxLimitWait = time.Minute
	// sandboxLimitIdle ends the wait sooner when this process has deleted or
	// paused nothing for that long: nothing it could wait for is coming.
	sandboxLimitIdle = 5 * time.Second
	// runningCountTimeout bounds the count of running sandboxes that a
	// final refusal reports.
	runningCountTimeout = 10 * time.Second
)

// sandboxLimitPattern matches E2B's answer to a sandbox start (create,
// resume, one fork) over the team's concurrency cap: "you have reached the
// maximum number of concurrent E2B sandboxes (N). If you need more, ..."
// (also "forking would exceed ..." from older API versions).
var sandboxLimitPattern = regexp.MustCompile(`maximum number of concurrent E2B sandboxes(?: \((\d+)\))?`)

// sandboxLimitOf recognises E2B's refusal at the concurrency cap: a 429
// that says so, which retrying cannot fix while the sandboxes run. It
// returns the limit E2B named (0 when none).
func sandboxLimitOf(err error) (*APIError, int, bool) {
	e, ok := asAPIError(err)
	if !ok || e.StatusCode != http.StatusTooManyRequests {
		return nil, 0, false
	}
	m := sandboxLimitPattern.FindStringSubmatch(e.Message)
	if m == nil {
		return nil, 0, false
	}
	limit, _ := strconv.Atoi(m[1])
	return e, limit, true
}

// atSandboxLimit reports a 429 answer that is the concurrency cap, for the
// transport's retry policy; what it reads is put back in front of the body.
func atSandboxLimit(resp *http.Response) bool {
	return sandboxLimitPattern.Match(peekErrorBody(resp))
}

// SandboxLimitError reports a sandbox start (create, resume or fork) that
// E2B refused because the team runs as many sandboxes as its plan allows
// (running ones count, paused ones do not), after the start waited for
// places that this process's own deletions and pauses freed.
type SandboxLimitError struct {
	Op, SandboxID string
	Limit         int           // the limit E2B named; 0 when it named none
	Running       int           // the team's running sandboxes when the wait ended; -1 when unknown
	Started       int           // sandboxes this process started (created, resumed, forked)
	Waiting       int           // starts of this process refused at the limit, this one included
	Waited        time.Duration // how long this start waited for a place
	Stops         bool          // this process deleted or paused sandboxes meanwhile
	Err           *APIError     // E2B's last refusal
}

func (e *SandboxLimitError) Error() string {
	var b strings.Builder
	b.WriteString(opName(e.Op, e.SandboxID) + ": the team is at E2B's limit of ")
	if e.Limit > 0 {
		fmt.Fprintf(&b, "%d ", e.Limit)
	}
	b.WriteString("concurrent sandboxes")
	if e.Running >= 0 {
		fmt.Fprintf(&b, " and runs %d (paused ones do not count)", e.Running)
	}
	fmt.Fprintf(&b, "; this process started %d and has %d start(s) refused at the limit, this one included; "+
		"it waited %s for sandboxes it deletes or pauses", e.Started, e.Waiting, e.Waited.Round(time.Second))
	if !e.Stops {
		b.WriteString(" (none was being deleted or paused)")
	}
	fmt.Fprintf(&b, ". E2B answered %d: %s", e.Err.StatusCode, e.Err.Message)
	return b.String()
}

func (e *SandboxLimitError) Unwrap() error { return e.Err }

// IsSandboxLimit reports a start refused at the team's concurrent-sandbox limit.
func IsSandboxLimit(err error) bool {
	var le *SandboxLimitError
	if errors.As(err, &le) {
		return true
	}
	_, _, ok := sandboxLimitOf(err)
	return ok
}

// limitWait follows one start through its refusals at the limit.
type limitWait struct {
	op, sandboxID string
	first         time.Time // the first refusal; zero before any
	stops         bool
	slots         *sandboxSlots
}

// done ends the start's wait, whatever its outcome.
func (w *limitWait) done() {
	if !w.first.IsZero() {
		w.slots.addWaiting(-1)
	}
}

// awaitPlace handles a start refused at the limit (refusal, sent when
// freedBefore places had been freed). It returns nil when a place was freed
// since, so that the start is sent again, or a *SandboxLimitError when
// Config.SandboxLimitWait ran out, when nothing this process deletes or
// pauses has been under way for sandboxLimitIdle, or when ctx ended.
func (c *Client) awaitPlace(ctx context.Context, w *limitWait, freedBefore uint64, refusal *APIError) error {
	if w.first.IsZero() {
		w.first = time.Now()
		w.slots.addWaiting(1)
	}
	deadline := w.first.Add(c.sandboxLimitWait)
	for {
		st := w.slots.state()
		if st.freed > freedBefore {
			return nil
		}
		if st.stopping > 0 || st.lastStop.After(w.first) {
			w.stops = true
		}
		now := time.Now()
		wake := deadline
		if st.stopping == 0 {
			wake = minTime(deadline, maxTime(w.first, st.lastStop).Add(sandboxLimitIdle))
		}
		if !now.Before(wake) {
			return c.sandboxLimitError(ctx, w, refusal)
		}
		t := time.NewTimer(wake.Sub(now))
		select {
		case <-st.changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return c.sandboxLimitError(ctx, w, refusal)
		}
		t.Stop()
	}
}

func (c *Client) sandboxLimitError(ctx context.Context, w *limitWait, refusal *APIError) error {
	_, limit, _ := sandboxLimitOf(refusal)
	st := w.slots.state()
	return &SandboxLimitError{
		Op: w.op, SandboxID: w.sandboxID, Limit: limit, Running: c.runningSandboxes(ctx),
		Started: st.started, Waiting: st.waiting, Waited: time.Since(w.first), Stops: w.stops, Err: refusal,
	}
}

// runningSandboxes counts the team's running sandboxes (X-Total-Running),
// also after ctx ended; -1 when E2B did not say.
func (c *Client) runningSandboxes(ctx context.Context) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runningCountTimeout)
	defer cancel()
	var page []wireListedSandbox
	res, err := c.callAPI(ctx, apiCall{
		op: "count running sandboxes", method: http.MethodGet, path: "/v2/sandboxes",
		query: url.Values{"state": {SandboxStateRunning}, "limit": {"1"}}, class: retryIdempotent, out: &page,
	})
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(res.header.Get("X-Total-Running"))
	if err != nil {
		return -1
	}
	return n
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
