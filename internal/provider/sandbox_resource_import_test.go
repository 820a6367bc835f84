package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Importing a sandbox and planning with the configuration that made it plans no replacement:
// default_metadata stays out of metadata, and env_vars, which E2B does not return, follow the
// configuration.
func TestAccSandbox_importPlansNoReplacement(t *testing.T) {
	srv := testAccBackend(t)
	cfg := testAccRequiredProviders() +
		testAccProviderBlockWith(srv, `  default_metadata = { team = "data", env = "default" }`) + `
resource "e2b_sandbox" "test" {
  timeout  = "15m"
  metadata = { env = "own", purpose = "import" }
  env_vars = { APP_ENV = "staging" }
}
`
	ownMetadata := knownvalue.MapExact(map[string]knownvalue.Check{
		"env":     knownvalue.StringExact("own"),
		"purpose": knownvalue.StringExact("import"),
	})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// terraform import: the state holds only the sandbox's own metadata.
				Config:       cfg,
				ResourceName: sbAddr,
				ImportState:  true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					return checkImportedMetadata(states, map[string]string{"env": "own", "purpose": "import"})
				},
			},
			{
				// An import block with the same configuration: an in-place update that records
				// env_vars, never a replacement.
				Config:             cfg,
				ResourceName:       sbAddr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("metadata"), ownMetadata),
					plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("timeout"), knownvalue.StringExact("15m")),
				}},
			},
		},
	})
}

// checkImportedMetadata compares the metadata of the one imported sandbox with want.
func checkImportedMetadata(states []*terraform.InstanceState, want map[string]string) error {
	if len(states) != 1 {
		return fmt.Errorf("imported %d instances, want 1", len(states))
	}
	attrs := states[0].Attributes
	if n := attrs["metadata.%"]; n != strconv.Itoa(len(want)) {
		return fmt.Errorf("imported metadata has %s entries, want %d: %v", n, len(want), attrs)
	}
	for k, v := range want {
		if attrs["metadata."+k] != v {
			return fmt.Errorf("imported metadata.%s = %q, want %q", k, attrs["metadata."+k], v)
		}
	}
	if _, ok := attrs["env_vars.%"]; ok && attrs["env_vars.%"] != "0" {
		return fmt.Errorf("imported env_vars %v, want none (E2B does not return them)", attrs["env_vars.%"])
	}
	return nil
}

// Import IDs that cannot be sandbox IDs (or file paths) are refused before any request.
func TestAccImport_badIDsRefusedBeforeAnyRequest(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccRequiredProviders() + testAccProviderBlock(srv) + `
resource "e2b_sandbox" "test" {}
resource "e2b_sandbox_file" "f" {
  sandbox_id = "isandbox"
  path       = "x.txt"
  content    = "x"
}
resource "e2b_snapshot" "s" {
  sandbox_id = "isandbox"
}
`
	cases := []struct{ address, id, want string }{
		{sbAddr, "../../etc/passwd", `is not an E2B sandbox ID`},
		{sbAddr, "I-Am-Not", `is not an E2B sandbox ID`},
		{"e2b_sandbox_file.f", "not an id:/home/user/x.txt", `is not an E2B sandbox ID`},
		{"e2b_sandbox_file.f", "isandbox:~", `must name a file`},
		{"e2b_sandbox_file.f", "isandbox:/tmp/..", `must name a file`},
		{"e2b_sandbox_file.f", "isandbox:/tmp/a\tb", `must not contain control\s+characters`},
		{"e2b_snapshot.s", "BAD ID:abc:default", `is not an E2B sandbox ID`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: cfg, ResourceName: c.address, ImportState: true, ImportStateId: c.id,
			ExpectError: regexp.MustCompile(c.want),
		})
	}
	testAccRefusedWithoutRequests(t, srv, steps)
}

// testAccAfterImport creates a sandbox outside Terraform, imports it with terraform import into a
// configuration with the given env_vars lines, then runs steps made by the same configuration
// function.
func testAccAfterImport(t *testing.T, steps func(cfg func(env string) string) []resource.TestStep) {
	// Parallel before the sandbox exists: a test waiting for its slot must not outlive its timeout.
	t.Parallel()
	srv := testAccBackend(t)
	secure := true // As e2b_sandbox creates them by default.
	sb, err := testAccClient(t, srv).CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600, Secure: &secure})
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(env string) string {
		return testAccRequiredProviders() + sandboxConfig(srv, "timeout = \"10m\"\n"+env)
	}
	imported := resource.TestStep{Config: cfg(""), ResourceName: sbAddr, ImportState: true, ImportStateId: sb.SandboxID, ImportStatePersist: true}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps:                    append([]resource.TestStep{imported}, steps(cfg)...),
	})
}

// planned expects one action on the sandbox before the apply.
func planned(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(sbAddr, action)}}
}

// After terraform import, the first apply records the configured env_vars in place; from then
// on a change of env_vars replaces the sandbox again.
func TestAccSandbox_importAdoptsEnvVarsOnce(t *testing.T) {
	testAccAfterImport(t, func(cfg func(string) string) []resource.TestStep {
		return []resource.TestStep{
			{Config: cfg(`env_vars = { APP_ENV = "staging" }`), ConfigPlanChecks: planned(plancheck.ResourceActionUpdate)},
			{Config: cfg(`env_vars = { APP_ENV = "production" }`), ConfigPlanChecks: planned(plancheck.ResourceActionDestroyBeforeCreate)},
		}
	})
}

// An import whose configuration has no env_vars does not let env_vars added later skip the
// replacement that applies them.
func TestAccSandbox_envVarsAddedLaterToAnImportReplace(t *testing.T) {
	testAccAfterImport(t, func(cfg func(string) string) []resource.TestStep {
		return []resource.TestStep{
			{Config: cfg(""), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{Config: cfg(`env_vars = { APP_ENV = "staging" }`), ConfigPlanChecks: planned(plancheck.ResourceActionDestroyBeforeCreate)},
		}
	})
}
