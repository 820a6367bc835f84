package e2b

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// RateLimitError reports a control-plane request that E2B kept refusing for
// its API rate (429) until the caller's context ended (or rateRetryBound):
// it waited its turn between the refusals.
type RateLimitError struct {
	Op, SandboxID string
	Refusals      int           // how many times E2B refused it for its rate
	Waited        time.Duration // from the first refusal to the end
	Err           error         // the last answer (*APIError) or why the wait ended
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("%s: E2B's API rate limit refused it %d time(s) (429 Too Many Requests) over %s; it waited its "+
		"turn between refusals and then stopped: %v", opName(e.Op, e.SandboxID), e.Refusals, e.Waited.Round(time.Second), e.Err)
}

func (e *RateLimitError) Unwrap() error { return e.Err }

// IsAPIRateLimited reports a request other than a create that E2B refused
// for its API rate until the request's context ended.
func IsAPIRateLimited(err error) bool {
	var re *RateLimitError
	return errors.As(err, &re)
}

// rateLimited wraps err in a *RateLimitError when E2B refused the call for
// its API rate and the call then failed (still refused, or its context
// ended while it waited); other errors come back unchanged.
func rateLimited(ci *callInfo, err error) error {
	if ci == nil || ci.ownPace || ci.rateRefusals.Load() == 0 || IsSandboxLimit(err) {
		return err
	}
	if !hasStatus(err, http.StatusTooManyRequests) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &RateLimitError{Op: ci.op, SandboxID: ci.sandboxID, Refusals: int(ci.rateRefusals.Load()),
		Waited: time.Since(ci.firstRefusal), Err: err}
}
