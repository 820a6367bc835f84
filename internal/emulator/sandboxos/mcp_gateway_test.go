package sandboxos_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
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
			c := emulatortest.Start(t, emulator.Options{Isolation: isolation})
			sb := c.Create(map[string]any{"templateID": "mcp-gateway"})
			res := c.RunAs(sb, "root", `GATEWAY_ACCESS_TOKEN=tok-3f9a mcp-gateway --config '{"github":{}}'`)
			if !strings.Contains(res.Stdout, "configured") {
				t.Fatalf("mcp-gateway: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			if st, data := c.Download(sb, "/etc/mcp-gateway/.token"); st != 200 || string(data) != "tok-3f9a" {
				t.Fatalf("token file: %d %q", st, data)
			}
			if res := c.RunAs(sb, "root", `mcp-gateway --config '{}'`); !strings.Contains(res.Stderr, "GATEWAY_ACCESS_TOKEN is not set") {
				t.Fatalf("without a token: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			// E2B's base template has no gateway: E2B's SDK fails to start one there.
			base := c.Create(map[string]any{"templateID": "base"})
			if res := c.RunAs(base, "root", `GATEWAY_ACCESS_TOKEN=tok mcp-gateway --config '{}'`); res.End["exitCode"] == nil || !strings.Contains(res.Stderr, "not found") {
				t.Fatalf("mcp-gateway in a base sandbox: end %v stdout %q stderr %q", res.End, res.Stdout, res.Stderr)
			}
		})
	}
}
