package envd_test

import (
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Every boot names the hyperloop in the sandbox's /etc/hosts and gives processes
// E2B_EVENTS_ADDRESS, as E2B's envd does at every init. The file is the sandbox's own: a
// FIFO in its place does not hold the boot, and a link there is replaced, never written through.
func TestBootNamesHyperloopInSandboxHosts(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	if got := c.MustRun(sb, `printf %s "$E2B_EVENTS_ADDRESS"`); got != "http://192.0.2.1" {
		t.Errorf("E2B_EVENTS_ADDRESS=%q, want http://192.0.2.1", got)
	}
	if m := c.Machine(sb.SandboxID); m == nil || m.Root() == nil {
		t.Skip("no private root on this host: commands see the host's /etc/hosts, which the emulator leaves alone")
	}
	const line = "192.0.2.1        events.e2b.local\n"
	if got := c.MustRun(sb, `grep events.e2b.local /etc/hosts`); got != line {
		t.Fatalf("/etc/hosts names events.e2b.local as %q, want %q", got, line)
	}
	passwd := c.MustRun(sb, `cat /etc/passwd`)
	// A directory there cannot be replaced: the boot goes on without the line, as E2B's does.
	c.MustRun(sb, `sudo sh -c 'rm /etc/hosts && mkdir /etc/hosts'`)
	c.PauseAndResume(sb, map[string]any{"memory": false})
	c.MustRun(sb, `test -d /etc/hosts && sudo rmdir /etc/hosts`)
	for _, hostile := range []string{
		`rm -f /etc/hosts && mkfifo /etc/hosts`,
		`ln -sf /etc/passwd /etc/hosts`,
		`echo '10.9.9.9 events.e2b.local' > /etc/hosts`,
	} {
		c.MustRun(sb, `sudo sh -c '`+hostile+`'`)
		c.PauseAndResume(sb, map[string]any{"memory": false})
		if got := c.MustRun(sb, `test -f /etc/hosts && ! test -L /etc/hosts && grep events.e2b.local /etc/hosts`); got != line {
			t.Errorf("after %q and a reboot: /etc/hosts names events.e2b.local as %q", hostile, got)
		}
		if got := c.MustRun(sb, `cat /etc/passwd`); got != passwd {
			t.Errorf("after %q and a reboot: /etc/passwd changed", hostile)
		}
	}
}
