// Package httpjson writes and reads the JSON bodies of the emulator's HTTP
// APIs, their error bodies, and drops a connection where an answer must be
// lost. It imports nothing of the emulator.
package httpjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Write answers status with v as JSON (no body for nil). A 429 always says
// when to come back: E2B's spec gives every 429 a Retry-After (whole
// seconds), and a writer that set none gets E2B's minimum of one second.
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	if v == nil {
		return
	}
	_ = json.NewEncoder(w).Encode(v) // the client may be gone; nothing to do then
}

// Decode reads an optional JSON body into v; an empty body leaves v untouched.
func Decode(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return ErrEmptyBody
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("request body has an error: doesn't match schema: %w", err)
	}
	return nil
}

// ErrEmptyBody is Decode's error for a body without content, worded as
// E2B's OpenAPI request validator words it.
var ErrEmptyBody = errors.New("request body has an error: value is required but missing")

// ErrorJSON is the error body of E2B's APIs (the control plane's and envd's).
type ErrorJSON struct {
	Code      int    `json:"code"`
	ErrorCode string `json:"error_code,omitempty"` // E2B's machine-readable reason, where it gives one
	Message   string `json:"message"`
}

// Error answers status with msg in an ErrorJSON.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, ErrorJSON{Code: status, Message: msg})
}

// CodedError answers status with msg and E2B's error_code.
func CodedError(w http.ResponseWriter, status int, errorCode, msg string) {
	Write(w, status, ErrorJSON{Code: status, ErrorCode: errorCode, Message: msg})
}

// Errorf is Error with a format.
func Errorf(w http.ResponseWriter, status int, format string, args ...any) {
	Error(w, status, fmt.Sprintf(format, args...))
}

// Drop closes the client connection without any answer.
func Drop(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler)
}
