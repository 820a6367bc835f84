package emulatortest

import (
	"testing"
)

// APIError is the body of a control-plane error answer, E2B's Error schema.
type APIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// WantError fails t unless the answer is status with E2B's error body
// carrying message.
func WantError(t *testing.T, what string, got int, body []byte, status int, message string) {
	t.Helper()
	WantStatus(t, what, got, body, status)
	if e := Decode[APIError](t, body); e.Code != status || e.Message != message {
		t.Errorf("%s: %d %q, want %d %q", what, e.Code, e.Message, status, message)
	}
}
