package ids

import (
	"regexp"
	"testing"
)

func TestIDShapes(t *testing.T) {
	if got := New("sec_", 20); !regexp.MustCompile(`^sec_[a-z0-9]{20}$`).MatchString(got) {
		t.Errorf("New: %q", got)
	}
	if got := Hex(8); !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got) {
		t.Errorf("Hex: %q", got)
	}
	if got := UUID(); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(got) {
		t.Errorf("UUID: %q", got)
	}
	if a, b := New("", 20), New("", 20); a == b {
		t.Error("two IDs are the same")
	}
}
