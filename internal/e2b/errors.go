package e2b

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// APIError is a non-success answer from the control plane or from envd.
type APIError struct {
	Op         string // "create sandbox", "pause sandbox", "envd Process/Start", "write file" ...
	SandboxID  string // when relevant
	StatusCode int    // HTTP status (Connect errors: mapped status)
	Code       string // E2B error_code, or Connect code ("not_found"), may be empty
	Message    string
	URL        string // the request's URL, credentials redacted ("" when unknown)

	// notFound: E2B's own answer that what the call addressed does not exist.
	// notRunning: the edge's answer that the sandbox is not running.
	// foreign: the answer is not shaped like one of E2B's (a proxy, a wrong URL).
	notFound, notRunning, foreign bool
	side                          answerSide
	shape                         bodyShape
}

// answerSide says which E2B service a call was addressed to.
type answerSide int

const (
	sideControl answerSide = iota // the control-plane API
	sideEnvd                      // envd, through the edge
	sideVolume                    // the volume-content API (the volume's token, not the API key)
)

// Error reads like `pause sandbox "ixxx": 409 Conflict: <message>`. An
// answer that is not E2B's also names the URL it came from.
// Error is the message with control characters escaped (SafeText): its message and code come
// from the answer, and envd's answers come from code in the sandbox.
func (e *APIError) Error() string { return SafeText(e.text()) }

func (e *APIError) text() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.SandboxID != "" {
		fmt.Fprintf(&b, " %q", e.SandboxID)
	}
	b.WriteString(": ")
	switch {
	case e.notRunning:
		fmt.Fprintf(&b, "sandbox %q is not running (paused, expired or killed)", e.SandboxID)
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		return b.String()
	case e.StatusCode == http.StatusUnauthorized && !e.foreign:
		b.WriteString("401 Unauthorized: ")
		switch e.side {
		case sideEnvd:
			b.WriteString("the sandbox access token was rejected")
		case sideVolume:
			b.WriteString("the volume's token was rejected")
		default:
			b.WriteString("the E2B API key was rejected")
		}
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		return b.String()
	case e.StatusCode > 0:
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.unrecognised() {
		b.WriteString(e.origin())
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	if e.Message != "" {
		if e.StatusCode > 0 || e.Code != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Message)
	}
	return b.String()
}

// unrecognised reports an answer whose meaning the client cannot take at its
// word: not shaped like E2B's, or a 404 that does not name what was asked for.
func (e *APIError) unrecognised() bool {
	return e.foreign || (e.StatusCode == http.StatusNotFound && !e.notFound)
}

// origin names where an unrecognised answer came from and what to check.
func (e *APIError) origin() string {
	where := ""
	if e.URL != "" {
		where = " from " + e.URL
	}
	if e.foreign && isGatewayStatus(e.StatusCode) {
		if e.side == sideEnvd {
			return where + " (a gateway's error, not an answer of the sandbox's daemon: the request may or may not have reached the sandbox)"
		}
		return where + " (a gateway's error, not an answer of E2B's API: the request may or may not have reached E2B)"
	}
	if e.side == sideEnvd {
		return where + " (not an answer of the sandbox's daemon: check sandbox_url and domain)"
	}
	return where + " (not an answer of E2B's API about this object: check api_url)"
}

// isGatewayStatus reports the statuses with which the load balancers and
// proxies between a client and E2B say that they could not get an answer.
func isGatewayStatus(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

func asAPIError(err error) (*APIError, bool) {
	var e *APIError
	ok := errors.As(err, &e)
	return e, ok
}

func hasStatus(err error, status int, connectCodes ...string) bool {
	e, ok := asAPIError(err)
	if !ok {
		return false
	}
	if e.StatusCode == status {
		return true
	}
	for _, c := range connectCodes {
		if e.Code == c {
			return true
		}
	}
	return false
}

// IsNotFound reports E2B's own answer that what the call addressed does not
// exist: the control plane's 404 naming the sandbox (or template), envd's
// not_found. A 404 from anything else (a wrong api_url, a proxy, an unknown
// route) is an ordinary error: it says nothing about the object.
func IsNotFound(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.notFound
}

// IsConflict reports a 409 / Connect already_exists or aborted.
func IsConflict(err error) bool {
	return hasStatus(err, http.StatusConflict, "already_exists", "aborted")
}

// IsRateLimited reports a 429 / Connect resource_exhausted that survived the retries, or a
// request that E2B's API rate kept refusing until its context ended (*RateLimitError).
func IsRateLimited(err error) bool {
	return hasStatus(err, http.StatusTooManyRequests, "resource_exhausted") || IsAPIRateLimited(err)
}

// IsUnauthorized reports a 401 / Connect unauthenticated.
func IsUnauthorized(err error) bool {
	return hasStatus(err, http.StatusUnauthorized, "unauthenticated")
}

// IsForbidden reports a 403 / Connect permission_denied: the object exists but
// belongs to another team (E2B's public templates, for example).
func IsForbidden(err error) bool {
	return hasStatus(err, http.StatusForbidden, "permission_denied")
}

// IsSandboxNotRunning reports the edge's answer that the sandbox is paused,
// expired or killed (a 502 that names the sandbox).
func IsSandboxNotRunning(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.notRunning
}

// IsSandboxGone reports the control plane's answer that a sandbox does not
// exist: it expired or was killed (envd's "not running" is IsSandboxNotRunning).
func IsSandboxGone(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.notFound && e.SandboxID != "" && e.side == sideControl
}

// ErrCodeDiskOnlyResumeOff is E2B's error_code for a resume from disk only (memory=false) where
// the team does not have the capability.
const ErrCodeDiskOnlyResumeOff = "sandbox_memory_override_disabled"

// IsDiskOnlyResumeOff reports E2B's refusal of a resume from disk only (ConnectOptions.FromDisk).
func IsDiskOnlyResumeOff(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusBadRequest && e.Code == ErrCodeDiskOnlyResumeOff
}

// IsTemplateNameTaken reports E2B's 409 to a template build request whose name is another
// template's (one E2B keeps for itself, a snapshot's, or equal to a template ID).
func IsTemplateNameTaken(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusConflict && strings.HasPrefix(e.Op, "request template build") &&
		strings.Contains(e.Message, "already used")
}

// IsFreeDiskRefused reports E2B's 400 to a template build request whose minFreeDiskMb is above
// the team's allowance; the message names the most the team may ask for.
func IsFreeDiskRefused(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusBadRequest && strings.HasPrefix(e.Message, "Free disk space")
}

// IsUnavailable reports a 503 that survived the retries: E2B could not take the request then
// (a pause while the sandbox's node is busy or E2B is draining, a build with no builder free).
func IsUnavailable(err error) bool {
	return hasStatus(err, http.StatusServiceUnavailable, "unavailable")
}

// IsBadRequest reports a 400 / Connect invalid_argument, failed_precondition or out_of_range.
func IsBadRequest(err error) bool {
	return hasStatus(err, http.StatusBadRequest, "invalid_argument", "failed_precondition", "out_of_range")
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// bodyShape is what an error body looks like, which tells who wrote it.
type bodyShape int

const (
	shapeOther   bodyShape = iota // not JSON, or JSON of another shape
	shapeE2B                      // {"code": <status>, "message": "..."}: the API and envd's REST handlers
	shapeConnect                  // {"code": "<connect code>", "message": "..."}: envd's RPCs
	shapeEdge                     // {"sandboxId": "...", "code": <status>, "message": "..."}: E2B's edge
)

// parsedBody is an error body and what it looks like.
type parsedBody struct {
	shape     bodyShape
	code      string // error_code or Connect code
	message   string
	sandboxID string // the edge's sandboxId
}

func parseErrorBody(status int, body []byte) parsedBody {
	var w struct {
		Code      json.RawMessage `json:"code"`
		Message   *string         `json:"message"`
		ErrorCode string          `json:"error_code"`
		SandboxID *string         `json:"sandboxId"`
	}
	if json.Unmarshal(body, &w) != nil || w.Message == nil || len(w.Code) == 0 {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
		return parsedBody{message: msg}
	}
	p := parsedBody{message: *w.Message, code: w.ErrorCode}
	var num int
	var str string
	switch {
	case json.Unmarshal(w.Code, &num) == nil && num == status && w.SandboxID != nil:
		p.shape, p.sandboxID = shapeEdge, *w.SandboxID
	case json.Unmarshal(w.Code, &num) == nil && num == status:
		p.shape = shapeE2B
	case json.Unmarshal(w.Code, &str) == nil && str != "":
		p.shape = shapeConnect
		if p.code == "" {
			p.code = str
		}
	}
	return p
}

// readErrorBody reads a bounded error body (not closing it) and parses it.
func readErrorBody(resp *http.Response) parsedBody {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if msg := redirectMessage(resp); msg != "" {
		return parsedBody{message: msg}
	}
	return parseErrorBody(resp.StatusCode, body)
}

// redirectMessage explains a redirect that was not followed ("" for other answers).
func redirectMessage(resp *http.Response) string {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return ""
	}
	to := resp.Header.Get("Location")
	if resp.Request != nil && resp.Request.URL != nil {
		if u, err := resp.Request.URL.Parse(to); err == nil {
			to = RedactURL(u)
		}
	}
	return fmt.Sprintf("redirected to %q; E2B does not redirect, so it was not followed (it would carry credentials)", to)
}

func requestURL(resp *http.Response) string {
	if resp.Request == nil {
		return ""
	}
	return RedactURL(resp.Request.URL)
}

// controlError builds the APIError of a non-success control-plane answer.
// subject is what the path addresses (a sandbox or template ID, "" for
// lists): a 404 is not-found only when E2B's own error body names it.
func controlError(op, sandboxID, subject string, resp *http.Response) *APIError {
	p := readErrorBody(resp)
	return &APIError{
		Op: op, SandboxID: sandboxID, StatusCode: resp.StatusCode, Code: p.code, Message: p.message,
		URL: requestURL(resp), side: sideControl, shape: p.shape, foreign: p.shape != shapeE2B,
		notFound: resp.StatusCode == http.StatusNotFound && p.shape == shapeE2B && subject != "" &&
			strings.Contains(p.message, subject),
	}
}

// envdError builds the APIError of a non-success answer from envd's REST
// handlers (/files) or from the edge in front of it. name is the base name of
// the path asked for: envd's 404 names the resolved path, which ends with it.
func envdError(op, sandboxID, name string, resp *http.Response) *APIError {
	p := readErrorBody(resp)
	e := envdAPIError(op, sandboxID, resp, p)
	e.foreign = p.shape != shapeE2B && p.shape != shapeEdge
	e.notFound = resp.StatusCode == http.StatusNotFound && p.shape == shapeE2B && name != "" &&
		strings.Contains(p.message, name)
	return e
}

// rpcErrorFromResponse converts a non-200 answer to an RPC: a Connect error
// body ({"code":"not_found"}), the edge's answer (502 when the sandbox is not
// running) or envd's plain JSON error (401 for a bad access token).
func rpcErrorFromResponse(op, sandboxID string, resp *http.Response) *APIError {
	p := readErrorBody(resp)
	e := envdAPIError(op, sandboxID, resp, p)
	e.foreign = p.shape == shapeOther
	if p.shape == shapeConnect {
		if st, ok := connectCodeStatus[p.code]; ok {
			e.StatusCode = st
		}
		e.notFound = p.code == "not_found"
	}
	return e
}

func envdAPIError(op, sandboxID string, resp *http.Response, p parsedBody) *APIError {
	return &APIError{
		Op: op, SandboxID: sandboxID, StatusCode: resp.StatusCode, Code: p.code, Message: p.message,
		URL: requestURL(resp), side: sideEnvd, shape: p.shape,
		notRunning: resp.StatusCode == http.StatusBadGateway && p.shape == shapeEdge && p.sandboxID == sandboxID,
	}
}

// envdTransient says whether a 5xx answer on the way to envd may succeed when
// sent again: a gateway's failure may, envd's own answer (its JSON error, a
// Connect error other than unavailable) says the same thing every time, and
// the edge's 502 means the sandbox is not running.
func envdTransient(status int, shape bodyShape) bool {
	switch {
	case status == http.StatusBadGateway:
		return shape != shapeEdge
	case status == http.StatusNotImplemented, status == http.StatusInsufficientStorage:
		return false
	case status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return true
	}
	return status >= 500 && shape == shapeOther
}

// notRunningError reports a sandbox that envd's health check found gone.
func notRunningError(op, sandboxID, message string) *APIError {
	return &APIError{Op: op, SandboxID: sandboxID, StatusCode: http.StatusBadGateway, Message: message,
		side: sideEnvd, shape: shapeEdge, notRunning: true}
}

// connectCodeStatus maps Connect codes to HTTP statuses (connect-go table).
var connectCodeStatus = map[string]int{
	"canceled":            499,
	"unknown":             500,
	"invalid_argument":    400,
	"deadline_exceeded":   504,
	"not_found":           404,
	"already_exists":      409,
	"permission_denied":   403,
	"resource_exhausted":  429,
	"failed_precondition": 400,
	"aborted":             409,
	"out_of_range":        400,
	"unimplemented":       501,
	"internal":            500,
	"unavailable":         503,
	"data_loss":           500,
	"unauthenticated":     401,
}

// connectError converts a Connect {code, message} from envd (an end-stream
// message) into an APIError.
func connectError(op, sandboxID, code, message string) *APIError {
	status, ok := connectCodeStatus[code]
	if !ok {
		status = 500
	}
	return &APIError{Op: op, SandboxID: sandboxID, StatusCode: status, Code: code, Message: message,
		side: sideEnvd, shape: shapeConnect, notFound: code == "not_found"}
}
