package emulatortest

import (
	"testing"
)

// WantError fails t unless the answer is status with E2B's error body
// ({"code","message"}) carrying message.
func WantError(t *testing.T, what string, got int, body []byte, status int, message string) {
	t.Helper()
	WantStatus(t, what, got, body, status)
	e := Decode[struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}](t, body)
	if e.Code != status || e.Message != message {
		t.Errorf("%s: %d %q, want %d %q", what, e.Code, e.Message, status, message)
	}
}
