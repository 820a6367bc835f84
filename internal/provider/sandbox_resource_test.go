package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const sbAddr = "e2b_sandbox.test"

func sandboxConfig(srv *emulator.Server, body string) string {
	return testAccProviderBlock(srv) + "resource \"e2b_sandbox\" \"test\" {\n" + body + "\n}\n"
}

// Create, change the timeout in place, then import by ID.
func TestAccSandbox_createUpdateTimeoutImport(t *testing.T) {
	srv := testAccBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config: sandboxConfig(srv, `
  timeout  = "5m"
  metadata = { purpose = "acc-test" }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^[a-z0-9]+$`))),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("template"), knownvalue.StringExact("base")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("state"), knownvalue.StringExact("running")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("paused"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("secure"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("envd_access_token"), knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("metadata_all"), testAccMetadataAll(map[string]knownvalue.Check{
					"purpose": knownvalue.StringExact("acc-test"),
				})),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("cpu_count"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("end_at"), knownvalue.NotNull()),
			},
			Check: testAccCheckSandboxRunning(t, srv),
		},
		{
			Config: sandboxConfig(srv, `
  timeout  = "15m"
  metadata = { purpose = "acc-test" }
`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("timeout"), knownvalue.StringExact("15m")),
			},
			Check: testAccCheckEndAtAfter(t, srv, 600),
		},
		{
			ResourceName:            sbAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeout", "timeouts", "traffic_access_token", "env_vars"},
		},
	}))
}

// testAccCheckSandboxRunning checks through the API that the sandbox runs, with the metadata.
func testAccCheckSandboxRunning(t *testing.T, srv *emulator.Server) resource.TestCheckFunc {
	return testAccCheckSandboxDetail(t, srv, func(d *e2b.SandboxDetail) error {
		if d.State != "running" {
			return fmt.Errorf("state %q, want running", d.State)
		}
		if d.Metadata["purpose"] != "acc-test" {
			return fmt.Errorf("metadata %v lacks purpose=acc-test", d.Metadata)
		}
		if _, ok := d.Metadata[e2b.IdempotencyMetadataKey]; ok {
			return fmt.Errorf("the client's create token reached the provider: metadata %v", d.Metadata)
		}
		return nil
	})
}

// testAccCheckEndAtAfter checks that the sandbox now ends more than minSeconds from its start.
func testAccCheckEndAtAfter(t *testing.T, srv *emulator.Server, minSeconds float64) resource.TestCheckFunc {
	return testAccCheckSandboxDetail(t, srv, func(d *e2b.SandboxDetail) error {
		if got := d.EndAt.Sub(d.StartedAt).Seconds(); got < minSeconds {
			return fmt.Errorf("sandbox ends %.0f s after its start; the new timeout was not applied", got)
		}
		return nil
	})
}

// testAccCheckSandboxDetail checks what E2B reports of the sandbox at sbAddr.
func testAccCheckSandboxDetail(t *testing.T, srv *emulator.Server, check func(*e2b.SandboxDetail) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := testAccAttr(s, sbAddr, "id")
		if err != nil {
			return err
		}
		d, err := testAccClient(t, srv).GetSandbox(context.Background(), id)
		if err != nil {
			return err
		}
		return check(d)
	}
}

// Pause and resume in place; a background process keeps its PID across both.
func TestAccSandbox_pauseResumeKeepsProcess(t *testing.T) {
	srv := testAccBackend(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	var pid uint32
	startSleep := startAccSleep(t, srv, "sleep 3600", &pid)
	sleepAlive := func(s *terraform.State) error {
		_, procs, err := processesAfterResume(t, srv, s)
		if err != nil {
			return err
		}
		for _, p := range procs {
			if p.PID == pid {
				return nil
			}
		}
		return fmt.Errorf("process %d did not survive pause and resume; running: %+v", pid, procs)
	}
	apiState := func(want string) resource.TestCheckFunc {
		return testAccCheckSandboxDetail(t, srv, func(d *e2b.SandboxDetail) error {
			if d.State != want {
				return fmt.Errorf("E2B reports state %q, want %q", d.State, want)
			}
			return nil
		})
	}
	// setPaused changes paused in place: the same sandbox, in state and in E2B, is then in state.
	setPaused := func(paused bool, state string, checks ...resource.TestCheckFunc) resource.TestStep {
		return resource.TestStep{
			Config: sandboxConfig(srv, fmt.Sprintf("timeout = \"10m\"\npaused = %t", paused)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("state"), knownvalue.StringExact(state)),
			},
			Check: resource.ComposeTestCheckFunc(append([]resource.TestCheckFunc{apiState(state)}, checks...)...),
		}
	}
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:            sandboxConfig(srv, `timeout = "10m"`),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             startSleep,
		},
		setPaused(true, "paused"),
		setPaused(false, "running", sleepAlive),
	}))
}

// Created paused: the sandbox exists in state and is paused in E2B.
func TestAccSandbox_createPaused(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{{
		Config: sandboxConfig(srv, `paused = true`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("paused"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("state"), knownvalue.StringExact("paused")),
		},
	}}))
}

// A sandbox killed by its timeout leaves state, and the next apply creates a new one.
func TestAccSandbox_expiredIsRecreated(t *testing.T) {
	srv := newTestEmulator(t)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	var id string
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:            sandboxConfig(srv, `timeout = "1m"`),
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             captureAttr(sbAddr, "id", &id),
		},
		{
			PreConfig: expireSandbox(t, srv, &id),
			Config:    sandboxConfig(srv, `timeout = "1m"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(sbAddr, tfjsonpath.New("id"))},
		},
	}))
}

// A sandbox that auto-paused reads as paused; the config's paused = false plans a resume.
func TestAccSandbox_autoPausedPlansResume(t *testing.T) {
	srv := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	var id string
	cfg := sandboxConfig(srv, "timeout = \"2m\"\nauto_pause = true")
	resource.ParallelTest(t, testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		{
			Config:            cfg,
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(sbAddr, tfjsonpath.New("id"))},
			Check:             captureAttr(sbAddr, "id", &id),
		},
		{
			PreConfig: expireSandbox(t, srv, &id),
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("paused"), knownvalue.Bool(false)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(sbAddr, tfjsonpath.New("id")),
				statecheck.ExpectKnownValue(sbAddr, tfjsonpath.New("state"), knownvalue.StringExact("running")),
			},
		},
	}))
}

// Import through an import block with the resource identity (Terraform/OpenTofu 1.12+).
func TestAccSandbox_importByIdentity(t *testing.T) {
	srv := testAccBackend(t)
	cfg := testAccRequiredProviders() + sandboxConfig(srv, `metadata = { purpose = "identity" }`)
	c := testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{
		identityStep(cfg, sbAddr, map[string]knownvalue.Check{"sandbox_id": knownvalue.NotNull()}),
		importBlockStep(cfg, sbAddr, resource.ImportBlockWithResourceIdentity),
		importBlockStep(cfg, sbAddr, resource.ImportBlockWithID),
	})
	c.TerraformVersionChecks = identityImportVersions
	resource.ParallelTest(t, c)
}

// startAccSleep starts script (sh -c) in the sandbox at sbAddr as a background process tagged
// acc-sleep, and records its PID.
func startAccSleep(t *testing.T, srv *emulator.Server, script string, pid *uint32) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		envd, err := testAccEnvd(s, testAccClient(t, srv), sbAddr)
		if err != nil {
			return err
		}
		stream, err := envd.StartProcess(context.Background(), e2b.StartProcessRequest{
			Process: e2b.ProcessConfig{Cmd: "/bin/sh", Args: []string{"-c", script}},
			Tag:     "acc-sleep",
		})
		if err != nil {
			return fmt.Errorf("start background process: %w", err)
		}
		*pid = stream.PID()
		return stream.Close()
	}
}

// processesAfterResume lists the processes running in the sandbox at sbAddr.
func processesAfterResume(t *testing.T, srv *emulator.Server, s *terraform.State) (*e2b.Envd, []e2b.ProcessInfo, error) {
	envd, err := testAccEnvd(s, testAccClient(t, srv), sbAddr)
	if err != nil {
		return nil, nil, err
	}
	procs, err := envd.ListProcesses(context.Background())
	if err != nil {
		return nil, nil, fmt.Errorf("list processes after resume: %w", err)
	}
	return envd, procs, nil
}

// expireSandbox ends the sandbox whose ID id holds as its timeout would (srv.Expire).
func expireSandbox(t *testing.T, srv *emulator.Server, id *string) func() {
	return func() {
		if err := srv.Expire(*id); err != nil {
			t.Fatalf("expire %s: %v", *id, err)
		}
	}
}
