package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// Snapshots, volumes, secrets, webhooks and template tags carry a resource identity, and an
// import block with it (terraform-plugin-testing's ImportBlockWithResourceIdentity, Terraform and
// OpenTofu 1.12+) brings each back with nothing to change.
func TestAccTeamObjects_importByIdentity(t *testing.T) {
	srv := newTestEmulator(t)
	srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "identitytpl", Names: []string{"identity-app"}, Builds: 2})
	cfg := testAccRequiredProviders() + testAccProviderBlock(srv) + testAccTestdata(t, "main.tf")
	notNull := func(attrs ...string) map[string]knownvalue.Check {
		m := map[string]knownvalue.Check{}
		for _, a := range attrs {
			m[a] = knownvalue.NotNull()
		}
		return m
	}
	adopting := func(file string) string {
		return testAccRequiredProviders() + testAccProviderBlock(srv) + testAccTestdata(t, file)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("e2b_snapshot.snap", notNull("snapshot_id")),
					statecheck.ExpectIdentity("e2b_volume.data", notNull("volume_id")),
					statecheck.ExpectIdentity("e2b_secret.token", notNull("secret_id")),
					statecheck.ExpectIdentity("e2b_webhook.hook", notNull("webhook_id")),
					statecheck.ExpectIdentity("e2b_template_tag.prod", map[string]knownvalue.Check{
						"template": knownvalue.StringExact("identity-app"), "tag": knownvalue.StringExact("prod"),
					}),
				},
			},
			importBlockStep(cfg, "e2b_volume.data", resource.ImportBlockWithResourceIdentity),
			importBlockStep(cfg, "e2b_template_tag.prod", resource.ImportBlockWithResourceIdentity),
			// What E2B does not return is left out of the configuration that adopts an object, as a
			// user adopting it writes it: the sandbox a snapshot was taken of, a secret's value, a
			// webhook's signing secret.
			importBlockStep(adopting("adopt_snapshot.tf"), "e2b_snapshot.snap", resource.ImportBlockWithResourceIdentity),
			importBlockStep(adopting("adopt_secret.tf"), "e2b_secret.token", resource.ImportBlockWithResourceIdentity),
			importBlockStep(adopting("adopt_webhook.tf"), "e2b_webhook.hook", resource.ImportBlockWithResourceIdentity),
		},
	})
}
