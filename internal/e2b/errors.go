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
}

// Error reads like `pause sandbox "ixxx": 409 Conflict: <message>`.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.SandboxID != "" {
		fmt.Fprintf(&b, " %q", e.SandboxID)
	}
	b.WriteString(": ")
	switch {
	case e.StatusCode == http.StatusBadGateway && e.SandboxID != "":
		fmt.Fprintf(&b, "sandbox %q is not running (paused, expired or killed)", e.SandboxID)
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		return b.String()
	case e.StatusCode == http.StatusUnauthorized:
		b.WriteString("401 Unauthorized: ")
		if isEnvdOp(e.Op) {
			b.WriteString("the sandbox access token was rejected")
		} else {
			b.WriteString("the E2B API key was rejected")
		}
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		return b.String()
	case e.StatusCode > 0:
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
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

// isEnvdOp reports an operation addressed to envd rather than the control plane.
func isEnvdOp(op string) bool {
	return strings.HasPrefix(op, "envd ") || op == "write file" || op == "read file"
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

// IsNotFound reports a 404 / Connect not_found.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound, "not_found") }

// IsConflict reports a 409 / Connect already_exists or aborted.
func IsConflict(err error) bool {
	return hasStatus(err, http.StatusConflict, "already_exists", "aborted")
}

// IsRateLimited reports a 429 / Connect resource_exhausted that survived the retries.
func IsRateLimited(err error) bool {
	return hasStatus(err, http.StatusTooManyRequests, "resource_exhausted")
}

// IsUnauthorized reports a 401 / Connect unauthenticated.
func IsUnauthorized(err error) bool {
	return hasStatus(err, http.StatusUnauthorized, "unauthenticated")
}

// IsSandboxNotRunning reports envd's 502: the sandbox is paused, expired or killed.
func IsSandboxNotRunning(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusBadGateway
}

// IsSandboxGone reports a control-plane 404 about a sandbox: it expired or was
// killed (envd's "not running" 502 is IsSandboxNotRunning).
func IsSandboxGone(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusNotFound && e.SandboxID != "" && !isEnvdOp(e.Op)
}

// IsBadRequest reports a 400 / Connect invalid_argument, failed_precondition or out_of_range.
func IsBadRequest(err error) bool {
	return hasStatus(err, http.StatusBadRequest, "invalid_argument", "failed_precondition", "out_of_range")
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// errorFromResponse builds an APIError from a non-success HTTP response of
// the control plane, envd REST or a plain (non-Connect) envd edge answer.
// The body is read (bounded) but not closed.
func errorFromResponse(op, sandboxID string, resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{Op: op, SandboxID: sandboxID, StatusCode: resp.StatusCode}
	var parsed struct {
		Code      json.RawMessage `json:"code"`
		Message   string          `json:"message"`
		ErrorCode string          `json:"error_code"`
	}
	if json.Unmarshal(body, &parsed) == nil && (parsed.Message != "" || len(parsed.Code) > 0) {
		e.Message = parsed.Message
		e.Code = parsed.ErrorCode
		// Connect errors carry a string code ("not_found").
		var s string
		if e.Code == "" && json.Unmarshal(parsed.Code, &s) == nil {
			e.Code = s
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > 512 {
			e.Message = e.Message[:512] + "…"
		}
	}
	return e
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

// connectError converts a Connect {code, message} into an APIError.
func connectError(op, sandboxID, code, message string) *APIError {
	status, ok := connectCodeStatus[code]
	if !ok {
		status = 500
	}
	return &APIError{Op: op, SandboxID: sandboxID, StatusCode: status, Code: code, Message: message}
}
