package emulator

import (
	"strings"
	"testing"
)

// Sandboxes from E2B's mcp-gateway template can run `mcp-gateway --config <json>` as E2B's SDK
// does, with private roots and where sandboxes share the host's root: the stand-in keeps the
// access token in the sandbox's /etc/mcp-gateway/.token, where the files API reads it, and
// writes nothing to the host's /etc. Sandboxes from base have no mcp-gateway.
func TestMCPGatewayStandIn(t *testing.T) {
	t.Parallel()
	for _, isolation := range []string{"auto", "none"} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			c := startTestServer(t, Options{Isolation: isolation})
			sb := c.create(map[string]any{"templateID": "mcp-gateway"})
			res := c.run(sb, `GATEWAY_ACCESS_TOKEN=tok-3f9a mcp-gateway --config '{"github":{}}'`)
			if !strings.Contains(res.stdout, "configured") {
				t.Fatalf("mcp-gateway: stdout %q stderr %q", res.stdout, res.stderr)
			}
			if st, data := c.download(sb, "/etc/mcp-gateway/.token"); st != 200 || string(data) != "tok-3f9a" {
				t.Fatalf("token file: %d %q", st, data)
			}
			if res := c.run(sb, `mcp-gateway --config '{}'`); !strings.Contains(res.stderr, "GATEWAY_ACCESS_TOKEN is not set") {
				t.Fatalf("without a token: stdout %q stderr %q", res.stdout, res.stderr)
			}
			// E2B's base template has no gateway: E2B's SDK fails to start one there.
			base := c.create(map[string]any{"templateID": "base"})
			if res := c.run(base, `GATEWAY_ACCESS_TOKEN=tok mcp-gateway --config '{}'`); res.end["exitCode"] == nil || !strings.Contains(res.stderr, "not found") {
				t.Fatalf("mcp-gateway in a base sandbox: end %v stdout %q stderr %q", res.end, res.stdout, res.stderr)
			}
		})
	}
}
