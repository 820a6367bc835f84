package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// auto_pause_memory = false: the auto-pause keeps the files, not the
// processes, so after resume a file written before is there and a process
// started before is gone.
func TestAccSandbox_autoPauseWithoutMemory(t *testing.T) {
	srv := newTestEmulator(t)
	sandbox := func(paused bool) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_sandbox" "fs" {
  timeout           = "15m"
  auto_pause        = true
  auto_pause_memory = false
  paused            = %t
}
resource "e2b_sandbox_command" "setup" {
  sandbox_id = e2b_sandbox.fs.id
  command    = "echo kept > /tmp/../home/user/kept.txt; sleep 1000 > /dev/null 2>&1 & echo $! > ~/sleeper.pid"
}
`, paused)
	}
	check := func(name, after string) string {
		return fmt.Sprintf(`
resource "e2b_sandbox_command" %q {
  depends_on = [%s]
  sandbox_id = e2b_sandbox.fs.id
  # A killed orphan may linger as a zombie until its new parent reaps it: only a live state counts.
  command    = "cat ~/kept.txt; s=$(awk '{print $3}' /proc/$(cat ~/sleeper.pid)/stat 2>/dev/null); if [ -n \"$s\" ] && [ \"$s\" != Z ]; then echo process-alive; else echo process-gone; fi"
}
`, name, after)
	}
	var id string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: sandbox(false) + check("before_pause", "e2b_sandbox_command.setup"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_sandbox.fs", tfjsonpath.New("auto_pause_memory"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("e2b_sandbox_command.before_pause", tfjsonpath.New("stdout"), knownvalue.StringExact("kept\nprocess-alive\n")),
				},
				Check: func(s *terraform.State) (err error) {
					id, err = testAccAttr(s, "e2b_sandbox.fs", "id")
					return err
				},
			},
			{
				// The timeout runs out: E2B pauses it without memory; the refresh shows paused.
				PreConfig:          expireSandbox(t, srv, &id),
				Config:             sandbox(false),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // paused = false plans a resume
			},
			{
				Config: sandbox(false) + check("after_resume", "e2b_sandbox.fs"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_sandbox.fs", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_sandbox_command.after_resume", tfjsonpath.New("stdout"), knownvalue.StringExact("kept\nprocess-gone\n")),
					statecheck.ExpectKnownValue("e2b_sandbox.fs", tfjsonpath.New("state"), knownvalue.StringExact("running")),
				},
			},
		},
	})
}

func TestAccSandbox_createOptionsValidation(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ body, want string }{
		{`auto_pause_memory = false`, `only when the sandbox auto-pauses`},
		{"auto_pause = true\n  auto_resume = true\n  auto_pause_memory = false", `cannot be combined with auto_resume`},
		{`mcp = "[1]"`, `mcp must be a JSON object`},
		{"fork_from = \"iabc\"\n  template = \"base\"", `(?s)Invalid Attribute Combination.*fork_from`},
		{`iam = { t = { audience = "", token_type = "jwt" } }`, `at least 1`},
		// E2B refuses a workload-token name that is empty or has braces (E2B's SDKs check it too).
		{`iam = { "" = { audience = "sts", token_type = "jwt" } }`, `(?s)Invalid iam token name.*must\s+not\s+be\s+empty`},
		{`iam = { "a}b" = { audience = "sts", token_type = "jwt" } }`, `(?s)Invalid iam token name.*must\s+not\s+contain\s+'\{',\s+'\}'`},
		// E2B refuses a mount path path.Clean would change; the error names the clean form, so an
		// import never plans a replacement over a spelling.
		{`volume_mounts = { v = "/mnt/a/" }`, `(?s)"/mnt/a/".*not\s+in\s+clean\s+form:\s+write\s+"/mnt/a"`},
		{`volume_mounts = { v = "/mnt//b" }`, `(?s)not\s+in\s+clean\s+form:\s+write\s+"/mnt/b"`},
		{`volume_mounts = { v = "/mnt/./c" }`, `(?s)not\s+in\s+clean\s+form:\s+write\s+"/mnt/c"`},
		{`volume_mounts = { v = "/mnt/x/../d" }`, `(?s)not\s+in\s+clean\s+form:\s+write\s+"/mnt/d"`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderBlock(srv) + "resource \"e2b_sandbox\" \"x\" {\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	testAccCheckNoRequests(t, srv, "invalid sandboxes")
}

// fork_from makes the sandbox through E2B's fork API: it starts with the
// source's files; mcp and iam are accepted and a change of mcp replaces.
func TestAccSandbox_forkFromAndMCP(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	mcp := func(server string) config.Variables {
		return config.Variables{"mcp_server": config.StringVariable(server)}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: mcp("github"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_sandbox_command.read", tfjsonpath.New("stdout"), knownvalue.StringExact("from-source\n")),
					statecheck.ExpectKnownValue("e2b_sandbox.fork", tfjsonpath.New("template_id"), knownvalue.NotNull()),
				},
				Check: func(s *terraform.State) error {
					a, _ := testAccAttr(s, "e2b_sandbox.source", "id")
					b, _ := testAccAttr(s, "e2b_sandbox.fork", "id")
					if a == "" || a == b {
						return fmt.Errorf("fork %q is not a new sandbox beside %q", b, a)
					}
					return nil
				},
			},
			{Config: cfg, ConfigVariables: mcp("github"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				Config:          cfg,
				ConfigVariables: mcp("slack"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_sandbox.source", plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}
