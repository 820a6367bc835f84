package provider

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// storeTokens fills testdata/TestAccSandboxAccess_writeOnlyAndStoreAccessTokens/main.tf.
func storeTokens(store bool) config.Variables {
	return config.Variables{"store_access_tokens": config.BoolVariable(store)}
}

// readSandboxFile reads a file from the sandbox of the e2b_sandbox resource at address.
func readSandboxFile(t *testing.T, emu *emulator.Server, s *terraform.State, address, path string) (string, error) {
	id, err := testAccAttr(s, address, "id")
	if err != nil {
		return "", err
	}
	envd, err := testAccClient(t, emu).SandboxEnvd(context.Background(), id, "")
	if err != nil {
		return "", err
	}
	rc, err := envd.ReadFile(context.Background(), path, e2b.ReadOptions{})
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// checkHandedOver verifies that the command received the target's real access details.
func checkHandedOver(t *testing.T, emu *emulator.Server, rec *e2bRecorder) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		target, err := targetCreated(s, rec)
		if err != nil {
			return err
		}
		targetID := target.SandboxID
		want := map[string]string{
			"ENVD_TOKEN":    target.EnvdAccessToken,
			"TRAFFIC_TOKEN": target.TrafficAccessToken,
			"ENVD_URL":      rec.URL(),
			"HOST":          "3000-" + targetID + ".e2b.app",
		}
		for name, v := range want {
			got, err := readSandboxFile(t, emu, s, "e2b_sandbox.runner", "/tmp/"+name)
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if got != v+"\n" {
				return fmt.Errorf("%s reached the command as %q, want %q", name, got, v)
			}
		}
		return nil
	}
}

// targetCreated returns the create answer of the e2b_sandbox.target in state.
func targetCreated(s *terraform.State, rec *e2bRecorder) (createdSandbox, error) {
	id, err := testAccAttr(s, "e2b_sandbox.target", "id")
	if err != nil {
		return createdSandbox{}, err
	}
	for _, c := range rec.created() {
		if c.SandboxID == id && c.EnvdAccessToken != "" && c.TrafficAccessToken != "" {
			return c, nil
		}
	}
	return createdSandbox{}, fmt.Errorf("no create answer with both tokens for the target %s", id)
}

// Access details read at run time reach a write-only attribute and never the state; the tokens of
// e2b_sandbox stay out of state while store_access_tokens is false and come back in place.
func TestAccSandboxAccess_writeOnlyAndStoreAccessTokens(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	work := t.TempDir()
	sameTarget := statecheck.CompareValue(compare.ValuesSame())
	// The backup holds the previous state, which step 2 wrote with the tokens on purpose.
	noTokensInState := func(s *terraform.State) error {
		target, err := targetCreated(s, rec)
		if err != nil {
			return err
		}
		return checkNotPersisted(workFiles(work, "terraform.tfstate"), []string{target.EnvdAccessToken, target.TrafficAccessToken})
	}
	cfg := testAccProviderBlockVia(emu, rec) + testAccTestdata(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		WorkingDir:               work,
		CheckDestroy:             testAccCheckSandboxGone(t, emu),
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: storeTokens(false),
				ConfigStateChecks: []statecheck.StateCheck{
					sameTarget.AddStateValue("e2b_sandbox.target", tfjsonpath.New("id")),
					statecheck.ExpectKnownValue("e2b_sandbox.target", tfjsonpath.New("envd_access_token"), knownvalue.Null()),
					statecheck.ExpectKnownValue("e2b_sandbox.target", tfjsonpath.New("traffic_access_token"), knownvalue.Null()),
					statecheck.ExpectKnownValue("e2b_sandbox.runner", tfjsonpath.New("envd_access_token"), knownvalue.NotNull()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(checkHandedOver(t, emu, rec), noTokensInState),
			},
			{
				// Storing the tokens again changes nothing on E2B's side and reads both back.
				Config:          cfg,
				ConfigVariables: storeTokens(true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_sandbox.target", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("e2b_sandbox_command.hand_over", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameTarget.AddStateValue("e2b_sandbox.target", tfjsonpath.New("id")),
				},
				Check: func(s *terraform.State) error {
					target, err := targetCreated(s, rec)
					if err != nil {
						return err
					}
					envd, _ := testAccAttr(s, "e2b_sandbox.target", "envd_access_token")
					traffic, _ := testAccAttr(s, "e2b_sandbox.target", "traffic_access_token")
					if envd != target.EnvdAccessToken || traffic != target.TrafficAccessToken {
						return fmt.Errorf("stored tokens %q/%q, want the sandbox's own", envd, traffic)
					}
					return nil
				},
			},
			{
				Config:          cfg,
				ConfigVariables: storeTokens(false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_sandbox.target", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameTarget.AddStateValue("e2b_sandbox.target", tfjsonpath.New("id")),
					statecheck.ExpectKnownValue("e2b_sandbox.target", tfjsonpath.New("envd_access_token"), knownvalue.Null()),
				},
				Check: noTokensInState,
			},
		},
	})
}
