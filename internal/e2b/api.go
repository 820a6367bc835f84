package e2b

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/hashicorp/go-retryablehttp"
)

// apiCall describes one control-plane request.
type apiCall struct {
	op        string
	sandboxID string
	subject   string // what the path addresses (sandbox or template ID); "" for lists
	method    string
	path      string // already escaped
	query     url.Values
	body      any // JSON-encoded when non-nil
	class     retryClass
	out       any  // JSON-decoded on 2xx when non-nil
	ownPace   bool // the caller paces it (creates: createPacer), not the API rate's turns
}

// apiResult is what the caller may need besides the decoded body.
type apiResult struct {
	status   int
	header   http.Header
	attempts int32
}

// transportError is an error where no HTTP answer was received (or the
// answer could not be read): the outcome of the request is unknown.
type transportError struct {
	op, sandboxID string
	err           error
}

func (e *transportError) Error() string {
	if e.sandboxID != "" {
		return fmt.Sprintf("%s %q: %v", e.op, e.sandboxID, e.err)
	}
	return fmt.Sprintf("%s: %v", e.op, e.err)
}

func (e *transportError) Unwrap() error { return e.err }

// callAPI runs a control-plane request through the retrying client and
// decodes the answer. Non-2xx answers become *APIError.
func (c *Client) callAPI(ctx context.Context, a apiCall) (apiResult, error) {
	if c.cfg.APIKey == "" {
		return apiResult{}, fmt.Errorf("%s: %w", a.op, ErrMissingAPIKey)
	}
	var body []byte
	if a.body != nil {
		var err error
		if body, err = json.Marshal(a.body); err != nil {
			return apiResult{}, fmt.Errorf("%s: encode request: %w", a.op, err)
		}
	}
	ci := &callInfo{op: a.op, sandboxID: a.sandboxID, class: a.class, timeout: timeoutWhole, ownPace: a.ownPace}
	target := c.apiURL.String() + a.path
	if len(a.query) > 0 {
		target += "?" + a.query.Encode()
	}
	var reqBody any
	if body != nil {
		reqBody = body
	}
	req, err := retryablehttp.NewRequestWithContext(withCall(ctx, ci), a.method, target, reqBody)
	if err != nil {
		return apiResult{}, fmt.Errorf("%s: %w", a.op, err)
	}
	req.Header.Set("X-API-Key", c.cfg.APIKey)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.control.Do(req)
	res := apiResult{attempts: ci.attempts.Load()}
	if err != nil {
		return res, rateLimited(ci, requestError(ctx, a.op, a.sandboxID, err))
	}
	defer drainClose(resp.Body)
	res.status, res.header = resp.StatusCode, resp.Header
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return res, rateLimited(ci, controlError(a.op, a.sandboxID, a.subject, resp))
	}
	if a.out != nil {
		if err := json.NewDecoder(capReader(resp.Body, controlAnswerLimit)).Decode(a.out); err != nil {
			return res, &transportError{op: a.op, sandboxID: a.sandboxID, err: fmt.Errorf("decode %d response: %w", resp.StatusCode, err)}
		}
	}
	return res, nil
}

// requestError explains a request that got no answer: the caller's context
// ended, or the outcome is unknown (*transportError).
func requestError(ctx context.Context, op, sandboxID string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", opName(op, sandboxID), ctx.Err())
	}
	return &transportError{op: op, sandboxID: sandboxID, err: redactURLError(err)}
}

// redactURLError hides the credentials that net/http leaves in the URL of a
// *url.Error (it masks only the password).
func redactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok { //nolint:errorlint // only the error as returned by http.Client.Do
		c := *ue
		c.URL = RedactURLString(ue.URL)
		if c.URL != ue.URL {
			return &c
		}
	}
	return err
}

func opName(op, sandboxID string) string {
	if sandboxID == "" {
		return op
	}
	return fmt.Sprintf("%s %q", op, sandboxID)
}

func drainClose(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 64<<10))
	_ = rc.Close()
}

// pathSeg escapes one path segment (IDs, names with "/" or ":").
func pathSeg(s string) string { return url.PathEscape(s) }

func newGet(ctx context.Context, target string) (*retryablehttp.Request, error) {
	return retryablehttp.NewRequestWithContext(ctx, http.MethodGet, target, nil)
}
