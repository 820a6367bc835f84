package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A sandbox started from a tagged template ("python-app:prod") and imported: E2B reports the
// template without the tag, so the imported state says "python-app"; the configuration's
// "python-app:prod" is then recorded in place, never a replacement, with `terraform import`
// (every CLI, the only way on Terraform 1.11) and with an import block.
func TestAccSandbox_importKeepsTemplateTag(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "pyapptpl", Names: []string{"python-app"}, Builds: 2})
	client := testAccClient(t, srv)
	if _, _, err := client.AssignTemplateTags(context.Background(), "python-app:default", []string{"prod"}); err != nil {
		t.Fatal(err)
	}
	// The team's sandbox, started by the SDK (secure, its default) from the tagged template.
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "python-app:prod", Timeout: 900, Secure: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testAccRequiredProviders() + testAccProviderBlock(srv) + `
resource "e2b_sandbox" "test" {
  template = "python-app:prod"
  timeout  = "15m"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckSandboxGone(t, srv),
		Steps: []resource.TestStep{
			{
				// terraform import (every CLI) into the configuration's state.
				Config:             cfg,
				ResourceName:       sbAddr,
				ImportState:        true,
				ImportStateKind:    resource.ImportCommandWithID,
				ImportStateId:      sb.SandboxID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if got := states[0].Attributes["template"]; got != "python-app" {
						return fmt.Errorf("imported template %q, want python-app (E2B reports no tag)", got)
					}
					return nil
				},
			},
			{
				// The plan after it records the tag in place.
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("template"), knownvalue.StringExact("python-app:prod")),
				}},
			},
			{
				// An import block with the same configuration plans the same update.
				Config:             cfg,
				ResourceName:       sbAddr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(sbAddr, tfjsonpath.New("template"), knownvalue.StringExact("python-app:prod")),
				}},
			},
			{
				// A new tag after that is a new template: a replacement.
				Config: strings.Replace(cfg, "python-app:prod", "python-app:default", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(sbAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}
