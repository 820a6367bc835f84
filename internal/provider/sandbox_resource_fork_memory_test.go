package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const forkAddr = "e2b_sandbox.fork"

func forkMemoryConfig(srv *emulator.Server, fork string) string {
	cfg := sandboxConfig(srv, `timeout = "10m"`)
	if fork != "" {
		cfg += "resource \"e2b_sandbox\" \"fork\" {\n  fork_from = e2b_sandbox.test.id\n" + fork + "\n}\n"
	}
	return cfg
}

// fork_memory = false forks the filesystem only, through fork v2: the fork has the file its
// source wrote and none of the processes the source runs.
func TestAccSandbox_forkMemoryFalseHasFilesNotProcesses(t *testing.T) {
	skipWhereV2RoutesOff(t, "a fork of the filesystem only")
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	const marker = "acc-fork-fs-only"
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: forkMemoryConfig(srv, ""),
			Check: func(s *terraform.State) error {
				envd, err := testAccEnvd(s, client, sbAddr)
				if err != nil {
					return err
				}
				startMarkedProcess(t, envd, marker)
				if !hasMarkedProcess(t, envd, marker) {
					t.Fatal("the source's process is not running")
				}
				return nil
			},
		},
		{
			Config: forkMemoryConfig(srv, "  fork_memory = false"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(forkAddr, "fork_memory", "false"),
				func(s *terraform.State) error {
					envd, err := testAccEnvd(s, client, forkAddr)
					if err != nil {
						return err
					}
					checkColdBooted(t, envd, marker)
					if n := srv.Counters().Requests["POST /v2/sandboxes/{id}/fork"]; n != 1 {
						t.Fatalf("v2 forks %d, want 1", n)
					}
					return nil
				},
			),
		},
	}))
}

// Where E2B refuses a fork without memory, the apply fails naming fork_from and nothing is
// forked: the refusal proves the fork asked for memory = false.
func TestAccSandbox_forkMemoryFalseRefusedWhereOff(t *testing.T) {
	skipWhereV2RoutesOff(t, "a fork of the filesystem only")
	srv := newTestEmulatorWith(t, emulator.Options{DiskOnlyResumeOff: true})
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: forkMemoryConfig(srv, "")},
		{
			Config:      forkMemoryConfig(srv, "  fork_memory = false"),
			ExpectError: regexp.MustCompile(`(?s)fork_from.*sandbox_memory_override_disabled|(?s)fork_from.*without memory`),
			Check: func(*terraform.State) error {
				if n := srv.Counters().SandboxesAlive; n != 1 {
					t.Fatalf("%d sandboxes alive after a refused fork, want 1", n)
				}
				return nil
			},
		},
	}))
}

// fork_memory without fork_from is refused at validate time, with no request to E2B.
func TestAccSandbox_forkMemoryNeedsForkFrom(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config:      sandboxConfig(srv, "fork_memory = false"),
		ExpectError: regexp.MustCompile(`(?s)fork_memory.*fork_from`),
		PlanOnly:    true,
	}}))
	if n := len(srv.Counters().Requests); n != 0 {
		t.Fatalf("%d routes called for a configuration refused at validate time", n)
	}
}

// Against an E2B without the v2 sandbox routes (an older self-hosted one), the sandbox is
// created, paused, resumed and forked through v1, and a filesystem-only fork fails naming what
// it needs, forking nothing.
func TestAccSandbox_fallsBackToV1WhereV2IsMissing(t *testing.T) {
	srv := newTestEmulatorWith(t, emulator.Options{SandboxRoutesV2Off: true})
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{Config: forkMemoryConfig(srv, "")},
		{Config: sandboxConfig(srv, "timeout = \"10m\"\npaused = true")},
		{Config: forkMemoryConfig(srv, "")},
		{
			Config: forkMemoryConfig(srv, "  timeout = \"5m\""),
			Check: func(s *terraform.State) error {
				c := srv.Counters()
				for _, route := range []string{"POST /sandboxes", "POST /sandboxes/{id}/connect", "POST /sandboxes/{id}/fork"} {
					if c.Requests[route] == 0 {
						t.Fatalf("%s never sent: %v", route, c.Requests)
					}
				}
				return nil
			},
		},
		{
			Config:      forkMemoryConfig(srv, "  timeout = \"5m\"") + "resource \"e2b_sandbox\" \"fs\" {\n  fork_from   = e2b_sandbox.test.id\n  fork_memory = false\n}\n",
			ExpectError: regexp.MustCompile(`(?s)fork_from.*/v2/sandboxes/\{id\}/fork`),
			Check: func(*terraform.State) error {
				if n := srv.Counters().SandboxesAlive; n != 2 {
					t.Fatalf("%d sandboxes alive, want 2", n)
				}
				return nil
			},
		},
	}))
}

// secure = false warns, at validate and plan time, that it needs E2B's deprecated v1 create, on
// the resource and on the ephemeral resource; secure = true does not.
func TestSandboxSecureFalseWarns(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	for _, secure := range []bool{false, true} {
		vals := map[string]tftypes.Value{"secure": tftypes.NewValue(tftypes.Bool, secure)}
		resp, err := p.server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: "e2b_sandbox", Config: p.dynamicValue(p.schema.ResourceSchemas["e2b_sandbox"].ValueType(), vals)})
		if err != nil {
			t.Fatal(err)
		}
		for what, diags := range map[string][]*tfprotov6.Diagnostic{
			"resource": resp.Diagnostics, "ephemeral resource": p.validateEphemeral("e2b_sandbox", vals),
		} {
			warned := false
			for _, d := range diags {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					t.Fatalf("%s, secure = %t: %s: %s", what, secure, d.Summary, d.Detail)
				}
				warned = warned || (d.Severity == tfprotov6.DiagnosticSeverityWarning && strings.Contains(d.Summary, "deprecated v1 create"))
			}
			if warned == secure {
				t.Fatalf("%s, secure = %t: warned %t: %+v", what, secure, warned, diags)
			}
		}
	}
	if n := len(srv.Counters().Requests); n != 0 {
		t.Fatalf("validation called E2B: %v", srv.Counters().Requests)
	}
}
