package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// Attributes that carry credentials are sensitive: a plan never prints them. The MCP
// configuration holds the MCP servers' tokens (the docs' example has one) and a webhook URL may
// carry a token in its query.
func TestCLICredentials_notPrintedByPlan(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	ws.Write("main.tf", harness.RequiredProviders+`
resource "e2b_sandbox" "agent" {
  mcp = jsonencode({ github = { token = "ghp-mcp-TOKEN-7f3a" } })
}

resource "e2b_webhook" "hook" {
  url                        = "https://hooks.example.com/e2b?token=hook-TOKEN-91c2"
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "sig-secret"
}
`)
	r := ws.MustRun(context.Background(), "plan", "-no-color", "-input=false")
	for _, secret := range []string{"ghp-mcp-TOKEN-7f3a", "hook-TOKEN-91c2"} {
		if strings.Contains(r.Output(), secret) {
			t.Errorf("the plan prints %q:\n%s", secret, r.Output())
		}
	}
	if !strings.Contains(r.Output(), "e2b_webhook.hook will be created") {
		t.Fatalf("not the plan expected:\n%s", r.Output())
	}
}
