package provider

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// wrapped matches the phrases in order, however the CLI wraps the lines between their words.
func wrapped(phrases ...string) *regexp.Regexp {
	parts := make([]string, len(phrases))
	for i, p := range phrases {
		parts[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}

// sandboxIDsInState lists the IDs of the e2b_sandbox instances in s, sorted.
func sandboxIDsInState(s *terraform.State) []string {
	var ids []string
	for _, rs := range s.RootModule().Resources {
		if rs.Type == "e2b_sandbox" {
			ids = append(ids, rs.Primary.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// checkEmulatorHoldsState checks that the emulator's sandboxes are exactly those in state, each
// made once: no orphan, no duplicate.
func checkEmulatorHoldsState(srv *emulator.Server, made int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		inState, alive := sandboxIDsInState(s), srv.SandboxIDs()
		if fmt.Sprint(inState) != fmt.Sprint(alive) {
			return fmt.Errorf("state holds %v, E2B runs %v", inState, alive)
		}
		if n := srv.Counters().SandboxesCreated; n != made {
			return fmt.Errorf("%d sandboxes made, want %d", n, made)
		}
		return nil
	}
}

// Twelve sandboxes at the default -parallelism against one create per second (Hobby) all
// succeed, with the test provider's short retry settings: creates refused for the rate are
// paced and retried until their create timeout, not max_retries times.
func TestAccSandbox_createsPacedWithinTheCreateRate(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetLimits(emulator.Limits{CreateRate: 1, MaxConcurrentSandboxes: 20})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			Config: testAccProviderBlock(srv) + `resource "e2b_sandbox" "s" {
  count = 12
}`,
			Check: resource.ComposeTestCheckFunc(
				checkEmulatorHoldsState(srv, 12),
				func(*terraform.State) error {
					if srv.LimitRefusals().CreateRate == 0 {
						return fmt.Errorf("no create was refused for the rate: the test proves nothing")
					}
					return nil
				},
			),
		}},
	})
}

// A stated create_rate_limit paces from the first create: E2B refuses none.
func TestAccSandbox_statedCreateRate(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetLimits(emulator.Limits{CreateRate: 2})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{{
			Config: testAccProviderBlockWith(srv, "  create_rate_limit = 1.5") + `resource "e2b_sandbox" "s" {
  count = 6
}`,
			Check: resource.ComposeTestCheckFunc(
				checkEmulatorHoldsState(srv, 6),
				func(*terraform.State) error {
					if n := srv.LimitRefusals().CreateRate; n != 0 {
						return fmt.Errorf("E2B refused %d creates paced to a stated rate below its own", n)
					}
					return nil
				},
			),
		}},
	})
}

// Three sandboxes against a limit of two concurrent ones: the third fails naming the limit, the
// team's running sandboxes and what the run started, leaving two in state and none outside it.
func TestAccSandbox_concurrentSandboxLimit(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 2})
	config := testAccProviderBlock(srv) + `resource "e2b_sandbox" "s" {
  count = 3
}`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config: config,
				ExpectError: wrapped("Could not create sandbox", "plan allows 2 concurrent sandboxes and the team runs 2",
					"This run has started 2 sandboxes, and 1 start of this run (this one) was refused at the limit",
					"none was being deleted or paused", "maximum number of concurrent E2B sandboxes (2)"),
			},
			{
				// The failed apply left two sandboxes in state and none outside it: with room for a
				// third, the same configuration makes only the missing one.
				PreConfig: func() {
					if n, alive := srv.Counters().SandboxesCreated, len(srv.SandboxIDs()); n != 2 || alive != 2 {
						t.Fatalf("after the refused apply: %d made, %d alive, want 2 and 2", n, alive)
					}
					srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 3})
				},
				Config: config,
				Check:  checkEmulatorHoldsState(srv, 3),
			},
		},
	})
}

// Sandboxes replaced in one apply: the new ones, refused at the limit while the old ones are
// being destroyed, wait for the deletions and are created.
func TestAccSandbox_limitWaitsForDestroys(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 3})
	config := func(name string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`resource "e2b_sandbox" %q {
  count = 3
}`, name)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{Config: config("old"), Check: checkEmulatorHoldsState(srv, 3)},
			{Config: config("new"), Check: checkEmulatorHoldsState(srv, 6)},
		},
	})
}

// A paused sandbox's resume and a fork refused at the limit say the same as a create.
func TestAccSandbox_resumeAndForkAtTheLimit(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SetLimits(emulator.Limits{MaxConcurrentSandboxes: 2})
	block := testAccProviderBlockWith(srv, `  sandbox_limit_wait = "0s"`)
	paused := func(p bool) string {
		return fmt.Sprintf(`resource "e2b_sandbox" "a" {
  paused = %v
}
`, p)
	}
	running := `resource "e2b_sandbox" "b" {}
resource "e2b_sandbox" "c" {}
`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{Config: block + paused(true)},
			{Config: block + paused(true) + running},
			{
				Config: block + paused(false) + running,
				ExpectError: wrapped("Could not resume sandbox", "plan allows 2 concurrent sandboxes and the team runs 2",
					"maximum number of concurrent E2B sandboxes (2)"),
			},
			{
				Config: block + paused(true) + running + `resource "e2b_sandbox" "fork" {
  fork_from = e2b_sandbox.b.id
}
`,
				ExpectError: wrapped("Could not fork sandbox", "plan allows 2 concurrent sandboxes and the team runs 2",
					"maximum number of concurrent E2B sandboxes (2)"),
			},
		},
	})
	if n := srv.Counters().SandboxesCreated; n != 3 {
		t.Errorf("%d sandboxes made, want the 3 configured before the refusals", n)
	}
}
