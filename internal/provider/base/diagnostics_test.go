package base

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// An error of the client may carry what a sandbox chose (a file name, a lying envd's answer): its
// diagnostic shows no terminal control sequence, whatever branch words it.
func TestClientErrorDiagnosticEscapesSandboxText(t *testing.T) {
	hostile := "\x1b[2J\x1b]0;pwned\x07\r\u202eApply complete!"
	for _, err := range []error{
		errors.New("statat " + hostile + ": file name too long"),
		fmt.Errorf("list: %w", errors.New("bad token "+hostile)),
	} {
		d := ClientErrorDiagnostic("Could not download", err)
		for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e"} {
			if strings.Contains(d.Detail(), bad) {
				t.Errorf("detail %q keeps %q", d.Detail(), bad)
			}
		}
		if !strings.Contains(d.Detail(), `\x1b[2J`) {
			t.Errorf("detail %q does not show the escaped sequence", d.Detail())
		}
	}
}
