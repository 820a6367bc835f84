package egress_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// A command in a sandbox reaches E2B's hyperloop as on E2B (curl http://events.e2b.local/me,
// http://192.0.2.1/me, $E2B_EVENTS_ADDRESS/me) and is told its own sandbox's ID, with the
// internet blocked too; another sandbox's proxy credentials name that sandbox, and a request
// without credentials is refused. The emulator's own NO_PROXY does not reach sandboxes, so it
// cannot send their hyperloop requests past the proxy. Not parallel: it sets NO_PROXY.
func TestSandboxReachesHyperloopAsItself(t *testing.T) {
	t.Setenv("NO_PROXY", "events.e2b.local,192.0.2.1")
	t.Setenv("no_proxy", "events.e2b.local,192.0.2.1")
	c := emulatortest.Start(t, emulator.Options{})
	blocked := c.Create(map[string]any{"allow_internet_access": false})
	other := c.Create(map[string]any{})
	if got := c.MustRun(blocked, `curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://192.0.2.2/`); got != "403" {
		t.Fatalf("the blocked sandbox reaches another address of 192.0.2.0/24: status %s, want 403", got)
	}
	me := func(id string) string { return `{"sandboxID":"` + id + `"}` }

	for _, sb := range []emulatortest.Sandbox{blocked, other} {
		for _, cmd := range []string{
			`curl -sS --max-time 20 http://events.e2b.local/me`,
			`curl -sS --max-time 20 http://192.0.2.1/me`,
			`curl -sS --max-time 20 "$E2B_EVENTS_ADDRESS/me"`,
		} {
			if got := c.MustRun(sb, cmd); got != me(sb.SandboxID) {
				t.Errorf("sandbox %s: %s printed %q, want %q", sb.SandboxID, cmd, got, me(sb.SandboxID))
			}
		}
		if m := c.Machine(sb.SandboxID); m != nil && m.Root() != nil {
			hosts := c.MustRun(sb, `grep events.e2b.local /etc/hosts`)
			if hosts != "192.0.2.1        events.e2b.local\n" {
				t.Errorf("sandbox %s: /etc/hosts names events.e2b.local as %q", sb.SandboxID, hosts)
			}
		} else {
			t.Log("no private root on this host: commands see the host's /etc/hosts, which the emulator leaves alone")
		}
	}

	// The other sandbox's credentials, used from the first, name the other sandbox.
	otherProxy := strings.TrimSpace(c.MustRun(other, `printf %s "$HTTP_PROXY"`))
	cmd := `curl -sS --max-time 20 -x '` + otherProxy + `' http://events.e2b.local/me`
	if got := c.MustRun(blocked, cmd); got != me(other.SandboxID) {
		t.Errorf("with the other sandbox's credentials: %q, want %q", got, me(other.SandboxID))
	}
	// Without credentials: the proxy's 407, and nothing about any sandbox.
	u, _ := url.Parse(otherProxy)
	cmd = `curl -sS --max-time 20 -o /dev/null -w '%{http_code}' -x 'http://` + u.Host + `' http://192.0.2.1/me`
	if got := c.MustRun(blocked, cmd); got != "407" {
		t.Errorf("without proxy credentials: status %s, want 407", got)
	}
}
