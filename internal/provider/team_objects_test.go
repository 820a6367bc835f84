package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// Values of the objects made out of band that must never reach a generated
// configuration, a plan or a state.
const (
	adoptSecretValue    = "adopt-secret-value-5d1f"
	adoptSignature      = "adopt-signature-secret-9c2e"
	adoptWebhookURLPart = "token=adopt-url-token-7b3a"
)

// adopted is one object of every team type, made through the E2B API
// without Terraform, as a team that already runs E2B has them.
type adopted struct {
	templateID, buildID, snapshotID, volumeID, secretID, webhookID string
}

func createTeamObjectsOutOfBand(t *testing.T, srv *emulator.Server) adopted {
	t.Helper()
	ctx := context.Background()
	c := testAccClient(t, srv)
	var a adopted
	a.templateID = "adopt" + randomHex(8)
	srv.SeedTemplate(emulator.TemplateSeed{TemplateID: a.templateID, Names: []string{"adopt-app"}, Builds: 2})
	buildID, _, err := c.AssignTemplateTags(ctx, "adopt-app:default", []string{"prod"})
	if err != nil {
		t.Fatal(err)
	}
	a.buildID = buildID
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.CreateSnapshot(ctx, sb.SandboxID, "adopt-snap")
	if err != nil {
		t.Fatal(err)
	}
	a.snapshotID = snap.SnapshotID
	if err := c.KillSandbox(ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	v, err := c.CreateVolume(ctx, "adopt-vol")
	if err != nil {
		t.Fatal(err)
	}
	a.volumeID = v.VolumeID
	s, err := c.CreateSecret(ctx, "adopt-secret", adoptSecretValue, map[string]string{"team": "data"})
	if err != nil {
		t.Fatal(err)
	}
	a.secretID = s.SecretID
	name, url, secret, enabled := "adopt-hook", "https://hooks.example/e2b?"+adoptWebhookURLPart, adoptSignature, true
	wh, err := c.CreateWebhook(ctx, e2b.WebhookInput{Name: &name, URL: &url, SignatureSecret: &secret, Enabled: &enabled,
		Events: []string{"sandbox.lifecycle.created", "sandbox.lifecycle.killed"}})
	if err != nil {
		t.Fatal(err)
	}
	a.webhookID = wh.WebhookID
	return a
}

// identityVariables fill testdata/TestAccTeamObjects_adoptByIdentity/main.tf, the configuration
// a user writes to adopt the objects by import blocks with their identities, and more.
func (a adopted) identityVariables(more config.Variables) config.Variables {
	vars := config.Variables{
		"template_id": config.StringVariable(a.templateID), "build_id": config.StringVariable(a.buildID),
		"snapshot_id": config.StringVariable(a.snapshotID), "volume_id": config.StringVariable(a.volumeID),
		"secret_id": config.StringVariable(a.secretID), "webhook_id": config.StringVariable(a.webhookID),
	}
	maps.Copy(vars, more)
	return vars
}

// Objects of every type made out of band are adopted by import blocks with
// their identities (Terraform and OpenTofu 1.12+), and the plan after the
// apply is empty (the test framework checks it after every apply).
func TestAccTeamObjects_adoptByIdentity(t *testing.T) {
	srv := newTestEmulator(t)
	a := createTeamObjectsOutOfBand(t, srv)
	id := func(addr, attr string) statecheck.StateCheck {
		return statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{attr: knownvalue.NotNull()})
	}
	cfg := testAccProviderBlock(srv) + testAccTestdata(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: a.identityVariables(nil),
				ConfigStateChecks: []statecheck.StateCheck{
					id("e2b_snapshot.ready", "snapshot_id"), id("e2b_volume.data", "volume_id"),
					id("e2b_secret.token", "secret_id"), id("e2b_webhook.hook", "webhook_id"),
					statecheck.ExpectKnownValue("e2b_snapshot.ready", tfjsonpath.New("snapshot_id"), knownvalue.StringExact(a.snapshotID)),
					statecheck.ExpectKnownValue("e2b_secret.token", tfjsonpath.New("current_version"), knownvalue.Int64Exact(1)),
				},
			},
			{
				// E2B stores a metadata change with a value: refused at plan without one.
				Config:          cfg,
				ConfigVariables: a.identityVariables(config.Variables{"secret_team": config.StringVariable("ml")}),
				PlanOnly:        true,
				ExpectError:     regexp.MustCompile(`(?s)Missing secret value.*new\s+version\s+with\s+its\s+value`),
			},
			{
				// A template adopted without its base cannot be built again.
				Config:          cfg,
				ConfigVariables: a.identityVariables(config.Variables{"template_cpu_count": config.IntegerVariable(4)}),
				PlanOnly:        true,
				ExpectError:     regexp.MustCompile(`(?s)Missing template base.*needs\s+a\s+new\s+build`),
			},
			{
				// What needs no value, URL or build changes in place on adopted objects.
				Config: cfg,
				ConfigVariables: a.identityVariables(config.Variables{
					"template_public": config.BoolVariable(true), "webhook_enabled": config.BoolVariable(false),
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("e2b_template.app", tfjsonpath.New("public"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("e2b_webhook.hook", tfjsonpath.New("enabled"), knownvalue.Bool(false)),
					statecheck.ExpectSensitiveValue("e2b_webhook.hook", tfjsonpath.New("url")),
				},
			},
		},
	})
}

// The whole onboarding on Terraform 1.14+: `terraform query
// -generate-config-out` writes configuration and import blocks for objects of
// every type made out of band, the plan of it only imports, the apply adopts
// them, and the plan after is empty. The values E2B never returns (a
// secret's value, a webhook's secret) and the sensitive URL appear as
// `null # sensitive`, never as values.
func TestAccTeamObjects_queryGeneratesAdoptableConfig(t *testing.T) {
	srv := newTestEmulator(t)
	ws := harness.NewWorkspace(t, srv)
	skipWithoutQuery(t, ws, tfversion.Version1_14_0)
	a := createTeamObjectsOutOfBand(t, srv)
	ws.Write("main.tf", harness.RequiredProviders+`
provider "e2b" {}
`)
	writeListAllQuery(ws, "template", "template_tag", "snapshot", "volume", "secret", "webhook")

	ctx := context.Background()
	gen := generateConfigByQuery(t, ctx, ws)
	for _, want := range []string{a.templateID, a.buildID, a.snapshotID, a.volumeID, a.secretID, a.webhookID,
		`\bvalue\s+= null # sensitive`, `\bsignature_secret\s+= null # sensitive`, `\burl\s+= null # sensitive`} {
		if !regexp.MustCompile(want).Match(gen) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	for _, secret := range []string{adoptSecretValue, adoptSignature, adoptWebhookURLPart} {
		if strings.Contains(string(gen), secret) {
			t.Fatalf("generated.tf contains %q:\n%s", secret, gen)
		}
	}
	if t.Failed() {
		return
	}
	applyGeneratedImports(t, ctx, ws, gen, 6)
	for _, addr := range []string{"e2b_template.all_0", "e2b_template_tag.all_0", "e2b_snapshot.all_0", "e2b_volume.all_0", "e2b_secret.all_0", "e2b_webhook.all_0"} {
		if !strings.Contains(ws.MustRun(ctx, "state", "list").Output(), addr) {
			t.Errorf("%s is not in state", addr)
		}
	}
	ws.MustRun(ctx, "destroy", "-auto-approve", "-no-color", "-input=false")
}

// Volumes, secrets, webhooks and snapshots deleted outside Terraform leave
// the state with a warning and are planned again, also on CLIs older than
// 1.12 that store no identity (the provider sets one on the way out, which
// the framework wants).
func TestAccTeamObjects_deletedOutside(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + testAccTestdata(t, "main.tf")
	ids := map[string]string{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(s *terraform.State) error {
					for _, addr := range []string{"e2b_snapshot.snap", "e2b_volume.data", "e2b_secret.token", "e2b_webhook.hook"} {
						id, err := testAccAttr(s, addr, "id")
						if err != nil {
							return err
						}
						ids[addr] = id
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					ctx, c := context.Background(), testAccClient(t, srv)
					for _, err := range []error{
						c.DeleteSnapshot(ctx, ids["e2b_snapshot.snap"]), c.DeleteVolume(ctx, ids["e2b_volume.data"]),
						c.DeleteSecret(ctx, ids["e2b_secret.token"]), c.DeleteWebhook(ctx, ids["e2b_webhook.hook"]),
					} {
						if err != nil {
							t.Fatal(err)
						}
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("e2b_snapshot.snap", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("e2b_volume.data", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("e2b_secret.token", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("e2b_webhook.hook", plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// skipWithoutQuery skips unless the CLI is Terraform min or newer: OpenTofu and older Terraforms
// have no `terraform query`. The test names min, which is how scripts/test.sh finds it.
func skipWithoutQuery(t *testing.T, ws *harness.Workspace, min *version.Version) {
	t.Helper()
	got := cliVersion(t, ws)
	if got.Core().LessThan(min) || strings.Contains(filepath.Base(ws.CLI), "tofu") {
		t.Skipf("%s %s has no `terraform query` (Terraform %d.%d+ has)", ws.CLI, got, min.Segments()[0], min.Segments()[1])
	}
}

// writeListAllQuery writes a query that lists every object of each e2b_<type> with its resource.
func writeListAllQuery(ws *harness.Workspace, types ...string) {
	var query strings.Builder
	for _, typ := range types {
		fmt.Fprintf(&query, "list \"e2b_%s\" \"all\" {\n  provider         = e2b\n  include_resource = true\n}\n\n", typ)
	}
	ws.Write("adopt.tfquery.hcl", query.String())
}

// generateConfigByQuery runs `terraform query` over ws's .tfquery.hcl files and returns the
// configuration it generated for the objects found.
func generateConfigByQuery(t *testing.T, ctx context.Context, ws *harness.Workspace) []byte {
	t.Helper()
	ws.MustRun(ctx, "query", "-no-color", "-generate-config-out=generated.tf")
	gen, err := os.ReadFile(filepath.Join(ws.Dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// applyGeneratedImports adopts what generateConfigByQuery wrote: its plan imports the n objects
// and does nothing else, and once applied the plan is empty.
func applyGeneratedImports(t *testing.T, ctx context.Context, ws *harness.Workspace, gen []byte, n int) {
	t.Helper()
	want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", n)
	if out := ws.MustRun(ctx, "plan", "-no-color", "-input=false").Output(); !strings.Contains(out, want) {
		t.Fatalf("the plan of the generated configuration does more than import:\n%s\n%s", out, gen)
	}
	ws.MustRun(ctx, "apply", "-auto-approve", "-no-color", "-input=false")
	if r := ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode"); r.Err != nil {
		t.Fatalf("the plan after adopting is not empty: %v\n%s", r.Err, r.Output())
	}
}
