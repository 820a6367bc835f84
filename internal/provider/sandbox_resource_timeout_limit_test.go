package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A timeout above the team's plan limit (the emulator's is 1 hour, as on E2B's Hobby plan) fails
// with an error naming the limit and the plans, not E2B's bare 400, and creates nothing.
func TestAccSandbox_timeoutAbovePlanLimit(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: testAccProviderBlock(srv) + `
resource "e2b_sandbox" "handover" {
  template = "base"
  timeout  = "24h"
}
`,
		ExpectError: regexp.MustCompile(`(?s)above what the team's E2B plan.*at most 1 hour.*Hobby plan allows 1 hour.*Pro\s+plan 24\s+hours.*auto_pause`),
	}}))
	if c := srv.Counters(); c.SandboxesCreated != 0 {
		t.Errorf("%d sandboxes created above the limit", c.SandboxesCreated)
	}
}
