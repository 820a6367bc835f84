package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// words matches a message however the CLI wraps it.
func words(s string) *regexp.Regexp {
	return regexp.MustCompile("(?s)" + strings.ReplaceAll(s, " ", `\s+`))
}

// A template or volume that E2B does not have is found at plan, with one read, when its name is
// known; the message says how to list what exists. A name known only at apply gets the same
// message from the create; the ephemeral sandbox (which creates at plan) too. A look-up that
// fails warns and leaves the check to the create. Nothing is created.
func TestAccSandbox_missingTemplateAndVolumeAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	unknownAtPlan := testAccProviderBlock(srv) + `
resource "terraform_data" "name" {
  input = "bsae"
}
resource "e2b_sandbox" "test" {
  template = terraform_data.name.output
}
`
	resource.ParallelTest(t, testAccCase(t, func(*terraform.State) error { return nil }, []resource.TestStep{
		{Config: sandboxConfig(srv, `template = "bsae"`), PlanOnly: true,
			ExpectError: words(`Template not found.*template = "bsae": E2B has no template .*e2b_templates.*e2b template list`)},
		{Config: sandboxConfig(srv, `volume_mounts = { "build-cahce" = "/mnt/cache" }`), PlanOnly: true,
			ExpectError: words(`Volume not found.*"build-cahce", which this team does not have.*e2b_volumes`)},
		{Config: unknownAtPlan, ExpectError: words(`Template not found.*template = "bsae": E2B has no template .*e2b_templates`)},
	}))
	if n := srv.Counters().SandboxesCreated; n != 0 {
		t.Fatalf("%d sandboxes created for configurations naming what E2B lacks", n)
	}
}

// The ephemeral sandbox creates at plan: E2B's 404 and 400 get the same message.
func TestAccEphemeralSandbox_missingTemplateAndVolume(t *testing.T) {
	srv := newTestEmulator(t)
	eph := func(body string) string {
		return testAccProviderBlock(srv) + "ephemeral \"e2b_sandbox\" \"s\" {\n" + body + "\n}\n"
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: eph(`template = "bsae"`), ExpectError: words(`Template not found.*e2b_templates`)},
			{Config: eph(`volume_mounts = { "build-cahce" = "/mnt/cache" }`), ExpectError: words(`Volume not found.*"build-cahce".*e2b_volumes`)},
		},
	})
	if n := srv.Counters().SandboxesCreated; n != 0 {
		t.Fatalf("%d sandboxes created", n)
	}
}

// A look-up that fails (E2B answers 503 however often it is asked) does not fail the plan: it
// warns, and the create is where E2B decides.
func TestAccSandbox_templateLookupFailureWarns(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		PreConfig: func() {
			srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"GET /volumes"}})
		},
		Config:             sandboxConfig(srv, `volume_mounts = { "build-cache" = "/mnt/cache" }`),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
	}}))
	if n := srv.Counters().Requests["GET /volumes"]; n == 0 {
		t.Fatal("the plan did not look the volumes up: the test proves nothing")
	}
}

// A template or volume that the same run creates is not refused: the sandbox that names it
// plans after it (it references it), and the look-up counts it.
func TestAccSandbox_referencesCreatedInTheSameRunPlan(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + `
resource "e2b_volume" "cache" {
  name = "fresh-cache"
}
resource "e2b_template" "app" {
  name          = "fresh-app"
  from_template = "base"
}
resource "e2b_sandbox" "test" {
  template      = e2b_template.app.name
  volume_mounts = { (e2b_volume.cache.name) = "/mnt/cache" }
}
`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
}
