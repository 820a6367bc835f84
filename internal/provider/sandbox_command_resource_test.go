package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const cmdAddr = "e2b_sandbox_command.test"

// setupVariables fill testdata/TestAccSandboxCommand_setupFromFiles/main.tf: the content of the
// file b and the command's max_output_bytes.
func setupVariables(b string, maxOutput int) config.Variables {
	return config.Variables{"b": config.StringVariable(b), "max_output_bytes": config.IntegerVariable(maxOutput)}
}

func TestAccSandboxCommand_setupFromFiles(t *testing.T) {
	srv := testAccBackend(t)
	sameRun := statecheck.CompareValue(compare.ValuesSame())
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config:          cfg,
			ConfigVariables: setupVariables("beta\n", 1024),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("alpha\nbeta\ngamma\n")),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stderr"), knownvalue.StringExact("files: 3\n")),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("exit_code"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("total_lines"), knownvalue.Int64Exact(4)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("truncated"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("timed_out"), knownvalue.Bool(false)),
			},
		},
		{
			// A file changed: its hash is a trigger, so the command runs again.
			Config:          cfg,
			ConfigVariables: setupVariables("BETA\n", 1024),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(cmdAddr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("alpha\nBETA\ngamma\n")),
				sameRun.AddStateValue(cmdAddr, tfjsonpath.New("id")),
			},
		},
		{
			// Output settings change in place, without running it again.
			Config:          cfg,
			ConfigVariables: setupVariables("BETA\n", 2048),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(cmdAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				sameRun.AddStateValue(cmdAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("alpha\nBETA\ngamma\n")),
			},
		},
		{
			Config:           cfg,
			ConfigVariables:  setupVariables("BETA\n", 2048),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	}))
}

func commandConfig(srv *emulator.Server, body string) string {
	return filesTestConfig(srv, "resource \"e2b_sandbox_command\" \"test\" {\n  sandbox_id = e2b_sandbox.test.id\n"+body+"\n}\n")
}

// A failing command fails the apply and leaves nothing in state; with
// allow_non_zero_exit it is recorded.
func TestAccSandboxCommand_nonZeroExit(t *testing.T) {
	srv := testAccBackend(t)
	failing := `  command = "echo 'checking'; echo 'fatal: not a git repository' >&2; exit 3"`
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config:      commandConfig(srv, failing),
			ExpectError: regexp.MustCompile(`(?s)Command failed with exit code 3.*fatal: not a git repository`),
		},
		{
			// Not in state after the failure: planned as a create, not a replace.
			Config: commandConfig(srv, failing+"\n  allow_non_zero_exit = true"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(cmdAddr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("exit_code"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("checking\n")),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stderr"), knownvalue.StringExact("fatal: not a git repository\n")),
			},
		},
	}))
}

// Two million lines keep only the tail, counted and marked truncated.
func TestAccSandboxCommand_hugeOutput(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: commandConfig(srv, `  command          = "seq 1 2000000"
  max_output_bytes = 100`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("total_lines"), knownvalue.Int64Exact(2000000)),
			statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("truncated"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), tailCheck(100, "1999999\n2000000\n")),
		},
	}}))
}

// tailCheck expects a string of exactly n bytes ending in suffix.
func tailCheck(n int, suffix string) knownvalue.Check {
	return knownvalue.StringRegexp(regexp.MustCompile(fmt.Sprintf(`^(?s).{%d}%s$`, n-len(suffix), regexp.QuoteMeta(suffix))))
}

func TestAccSandboxCommand_timeout(t *testing.T) {
	srv := testAccBackend(t)
	slow := `  command = "echo begin; sleep 300"
  timeout = "1s"`
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config:      commandConfig(srv, slow),
			ExpectError: regexp.MustCompile(`Command timed out after 1s`),
		},
		{
			Config: commandConfig(srv, slow+"\n  allow_non_zero_exit = true"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("timed_out"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("exit_code"), knownvalue.Int64Exact(124)),
				statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("begin\n")),
			},
		},
	}))
}

func TestAccSandboxCommand_badInputs(t *testing.T) {
	srv := testAccBackend(t)
	cases := []struct{ name, body, want string }{
		{"empty command", `command = "  "`, `command must contain a\s+shell\s+command`},
		{"bad timeout", "command = \"true\"\n  timeout = \"5 minutes\"", `(?s)Invalid duration.*Go\s+duration\s+such\s+as\s+"90s".*"5\s+minutes"`},
		{"timeout out of range", "command = \"true\"\n  timeout = \"25h\"", `(?s)timeout must be a duration from 1s\s+to\s+24h`},
		{"env name", "command = \"true\"\n  env = { \"1X\" = \"v\" }", `must be an environment\s+variable\s+name`},
		{"NUL in cwd", "command = \"true\"\n  cwd = \"/tmp\\u0000x\"", `must not contain\s+control\s+characters`},
		{"output too large", "command = \"true\"\n  max_output_bytes = 0", `max_output_bytes`},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{badSandboxChildStep(srv, "e2b_sandbox_command", c.body, c.want)}))
		})
	}
}

// env, stdin, user and cwd reach the command.
func TestAccSandboxCommand_inputs(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: commandConfig(srv, `  command = "echo \"$GREETING from $(pwd)\"; tr a-z A-Z"
  env     = { GREETING = "hello" }
  stdin   = "quiet input\n"
  cwd     = "/tmp"
  user    = "root"`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(cmdAddr, tfjsonpath.New("stdout"), knownvalue.StringExact("hello from /tmp\nQUIET INPUT\n")),
			statecheck.ExpectSensitiveValue(cmdAddr, tfjsonpath.New("env")),
		},
	}}))
}
