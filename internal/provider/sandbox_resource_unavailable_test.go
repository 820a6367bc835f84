package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A pause E2B keeps answering 503 (the sandbox's node busy, E2B draining) fails after the
// retries with what happened and what to do; the sandbox keeps running and the next apply
// pauses it.
func TestAccSandbox_pauseUnavailable(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: sandboxConfig(srv, `paused = false`)},
		{
			PreConfig: func() {
				srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"POST /sandboxes/{id}/pause"}})
			},
			Config:      sandboxConfig(srv, `paused = true`),
			ExpectError: regexp.MustCompile(`(?s)503 Service Unavailable.*Nothing\s+changed;\s+run\s+apply\s+again`),
		},
		{
			PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
			Config:    sandboxConfig(srv, `paused = true`),
			Check:     resource.TestCheckResourceAttr(sbAddr, "state", "paused"),
		},
	}))
}
