package envd

import "testing"

// events.e2b.local ends up on one line, the hyperloop's, last, as E2B's envd writes it; the
// other names of a line that held it stay, and a file without a final newline keeps its last line.
func TestHostsWithEventsNamesTheHyperloopOnce(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"": "192.0.2.1        events.e2b.local\n",
		"127.0.0.1 localhost\n127.0.1.1 e2b.local": "127.0.0.1 localhost\n127.0.1.1 e2b.local\n" +
			"192.0.2.1        events.e2b.local\n",
		"# comment events.e2b.local\n10.0.0.9\tevents.e2b.local\n10.0.0.8 other EVENTS.e2b.local more # c\n": "# comment events.e2b.local\n" +
			"10.0.0.8         other more\n192.0.2.1        events.e2b.local\n",
		"192.0.2.1        events.e2b.local\n": "192.0.2.1        events.e2b.local\n",
	}
	for in, want := range cases {
		if got := hostsWithEvents(in, "192.0.2.1"); got != want {
			t.Errorf("hostsWithEvents(%q) = %q, want %q", in, got, want)
		}
	}
}
