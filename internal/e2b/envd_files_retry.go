package e2b

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// WriteFileFrom uploads like WriteFile, but takes a function that opens the
// content, so that a failed attempt can be sent again from the start: after
// a dropped connection, a 429 or a 5xx that a gateway may not give again (not
// the edge's 502, the sandbox is not running, nor envd's own answer, which
// says the same every time: a bad path, a full disk). Writing a file replaces it, so a second attempt
// has the same effect as one. open is called once per attempt and what it
// returns is closed after that attempt.
func (e *Envd) WriteFileFrom(ctx context.Context, path string, open func() (io.ReadCloser, error), o WriteOptions) (*WriteInfo, error) {
	for attempt := 0; ; attempt++ {
		r, err := open()
		if err != nil {
			return nil, err
		}
		info, err := e.WriteFile(ctx, path, r, o)
		_ = r.Close()
		if err == nil || !uploadRetryable(err) || attempt >= e.c.retryMax || ctx.Err() != nil {
			return info, err
		}
		if err := sleepCtx(ctx, backoff(e.c.cfg.RetryWaitMin, e.c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
	}
}

func uploadRetryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	ae, ok := asAPIError(err)
	if !ok {
		return false
	}
	if ae.StatusCode == http.StatusTooManyRequests {
		return true
	}
	return envdTransient(ae.StatusCode, ae.shape)
}
