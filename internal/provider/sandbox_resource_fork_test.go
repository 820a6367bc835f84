package provider

import (
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

// A fork copies its source's template, metadata, lifecycle, secure and internet settings. They
// are unknown in the fork's first plan and read from E2B after it: the apply is consistent, and
// the next plan is empty, also once the fork's own timeout changes in place. The source is made
// with secure = false, away from the default, unless the run's emulators serve no v1 create.
func TestAccSandbox_forkCopiesItsSourceAndConverges(t *testing.T) {
	srv := newTestEmulator(t)
	secure := testSandboxRoutesV1Off()
	srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "forksourcetpl", Names: []string{"agent"}})
	cfg := testAccProviderBlockWith(srv, `default_metadata = { env = "test" }`) + testAccTestdata(t)
	forkTimeout := func(timeout string) config.Variables {
		return config.Variables{"secure": config.BoolVariable(secure), "fork_timeout": config.StringVariable(timeout)}
	}
	const fork = "e2b_sandbox.fork"
	sameTemplateID := statecheck.CompareValuePairs("e2b_sandbox.source", tfjsonpath.New("template_id"), fork, tfjsonpath.New("template_id"), compare.ValuesSame())
	sameMetadata := statecheck.CompareValuePairs("e2b_sandbox.source", tfjsonpath.New("metadata_all"), fork, tfjsonpath.New("metadata_all"), compare.ValuesSame())
	forkID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: forkTimeout("15m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(fork, tfjsonpath.New("auto_pause")),
					plancheck.ExpectUnknownValue(fork, tfjsonpath.New("allow_internet_access")),
					plancheck.ExpectUnknownValue(fork, tfjsonpath.New("metadata_all")),
					plancheck.ExpectUnknownValue(fork, tfjsonpath.New("template")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("auto_pause"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("auto_resume"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("allow_internet_access"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("secure"), knownvalue.Bool(secure)),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("template"), knownvalue.StringExact("agent")),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("metadata_all"), knownvalue.MapExact(map[string]knownvalue.Check{
						"env": knownvalue.StringExact("test"), "owner": knownvalue.StringExact("team-a"),
					})),
					sameTemplateID, sameMetadata,
					forkID.AddStateValue(fork, tfjsonpath.New("id")),
				},
			},
			{Config: cfg, ConfigVariables: forkTimeout("15m"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				Config:          cfg,
				ConfigVariables: forkTimeout("20m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(fork, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					forkID.AddStateValue(fork, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(fork, tfjsonpath.New("allow_internet_access"), knownvalue.Bool(false)),
				},
			},
			{Config: cfg, ConfigVariables: forkTimeout("20m"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
