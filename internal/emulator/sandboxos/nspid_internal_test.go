//go:build linux

package sandboxos

import "testing"

// A command that has just ended can show NSpid 0 (its pid has left the
// sandbox's namespace): that is no pid, and envd never reports one.
func TestInnermostNSpid(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int
		ok     bool
	}{
		{"Name:\tsh\nNSpid:\t4242\t7\n", 7, true},
		{"Name:\tsh\nNSpid:\t4242\n", 4242, true},
		{"Name:\tsh\nNSpid:\t4242\t0\n", 0, false},
		{"Name:\tsh\n", 0, false},
	} {
		if got, ok := innermostNSpid(c.status); got != c.want || ok != c.ok {
			t.Errorf("innermostNSpid(%q) = %d, %v; want %d, %v", c.status, got, ok, c.want, c.ok)
		}
	}
}
