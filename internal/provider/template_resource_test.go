package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const tplAddr = "e2b_template.app"

// stepsTemplateConfig: a template from the base template, a context folder
// copied in, an env var, a command and a workdir; plus a sandbox from it.
func stepsTemplateConfig(srv *emulator.Server, name, dir string) string {
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name          = %q
  from_template = "base"
  context       = %q
  steps = [
    { copy = { src = "app", dest = "/home/user/app" } },
    { env = { GREETING = "hello from the template" } },
    { run = { command = "echo \"$GREETING\" > /home/user/greeting.txt" } },
    { workdir = "/home/user/app" },
  ]
}
`, name, dir)
}

// stepsTemplateWithContext writes files (path -> content) into a new context folder and returns
// the stepsTemplateConfig named name that builds from it, and the folder.
func stepsTemplateWithContext(t *testing.T, srv *emulator.Server, name string, files map[string]string) (cfg, dir string) {
	t.Helper()
	dir = t.TempDir()
	harness.WriteTree(t, dir, files)
	return stepsTemplateConfig(srv, name, dir), dir
}

// withTemplateAttribute adds attr (a line of HCL) to the e2b_template from the base template in cfg.
func withTemplateAttribute(cfg, attr string) string {
	return strings.Replace(cfg, `from_template = "base"`, "from_template = \"base\"\n  "+attr, 1)
}

// sandboxExec runs a command in a new sandbox started from template.
func sandboxExec(t *testing.T, srv *emulator.Server, template, command string) (string, error) {
	t.Helper()
	c := testAccClient(t, srv)
	ctx := context.Background()
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: template, Timeout: 120})
	if err != nil {
		return "", fmt.Errorf("create a sandbox from %s: %w", template, err)
	}
	defer func() { _ = c.KillSandbox(ctx, sb.SandboxID) }()
	res, err := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken}).Exec(ctx, e2b.ExecRequest{Command: command})
	if err != nil {
		return "", err
	}
	return res.Stdout + res.Stderr, nil
}

func checkSandboxSees(t *testing.T, srv *emulator.Server, template, command string, want ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		out, err := sandboxExec(t, srv, template, command)
		if err != nil {
			return err
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				return fmt.Errorf("a sandbox from %s printed %q; want %q in it", template, out, w)
			}
		}
		return nil
	}
}

// checkTemplatesGone verifies destroy deleted every e2b_template in state.
func checkTemplatesGone(t *testing.T, srv *emulator.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c := testAccClient(t, srv)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "e2b_template" {
				continue
			}
			if _, err := c.GetTemplate(context.Background(), rs.Primary.Attributes["template_id"]); !e2b.IsNotFound(err) {
				return fmt.Errorf("template %s after destroy: %v (want not found)", rs.Primary.Attributes["template_id"], err)
			}
		}
		return nil
	}
}

// captured remembers an attribute between steps.
type captured struct{ v string }

func (c *captured) save(addr, attr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		v, err := testAccAttr(s, addr, attr)
		c.v = v
		return err
	}
}

func TestAccTemplate_stepsContextRebuildImport(t *testing.T) {
	srv := newTestEmulator(t)
	cfg, dir := stepsTemplateWithContext(t, srv, "acc-steps", map[string]string{"app/hello.txt": "version one\n", "app/lib/util.txt": "util\n", "notes.txt": "not copied\n"})
	var firstBuild, templateID captured
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_status"), knownvalue.StringExact("ready")),
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("context_sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("names"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(`/acc-steps$`))})),
			},
			Check: resource.ComposeTestCheckFunc(
				firstBuild.save(tplAddr, "build_id"),
				templateID.save(tplAddr, "template_id"),
				checkSandboxSees(t, srv, "acc-steps", `pwd; cat hello.txt lib/util.txt; cat /home/user/greeting.txt`,
					"/home/user/app", "version one", "util", "hello from the template"),
			),
		},
		{
			// A file no COPY step sends: nothing to build.
			PreConfig:        func() { harness.WriteTree(t, dir, map[string]string{"notes.txt": "edited, still not copied\n"}) },
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		{
			// A copied file: a new build of the same template, in place.
			PreConfig: func() { harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "version two\n"}) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("build_id")),
			}},
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					id, _ := testAccAttr(s, tplAddr, "template_id")
					build, _ := testAccAttr(s, tplAddr, "build_id")
					if id != templateID.v || build == firstBuild.v {
						return fmt.Errorf("after the rebuild: template %s build %s; want template %s with a build other than %s", id, build, templateID.v, firstBuild.v)
					}
					return nil
				},
				checkSandboxSees(t, srv, "acc-steps", `cat hello.txt`, "version two"),
				// The first build still starts sandboxes by its ID.
				func(s *terraform.State) error {
					return checkSandboxSees(t, srv, "acc-steps:"+firstBuild.v, `cat hello.txt`, "version one")(s)
				},
			),
		},
		{
			// public changes in place without a build.
			Config: withTemplateAttribute(cfg, "public = true"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_id"), knownvalue.NotNull()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("public"), knownvalue.Bool(true)),
			},
		},
		{
			ResourceName:      tplAddr,
			ImportState:       true,
			ImportStateVerify: true,
			// The build inputs live only in configuration: E2B does not return them.
			ImportStateVerifyIgnore: []string{"context", "from_template", "steps", "context_sha256", "timeouts"},
		},
		{
			ResourceName:            tplAddr,
			ImportState:             true,
			ImportStateId:           "acc-steps",
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"context", "from_template", "steps", "context_sha256", "timeouts"},
		},
	}))
}

func TestAccTemplate_importByIdentity(t *testing.T) {
	srv := newTestEmulator(t)
	cfg, _ := stepsTemplateWithContext(t, srv, "acc-identity", map[string]string{"app/hello.txt": "identity\n"})
	cfg = testAccRequiredProviders() + cfg
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   identityImportVersions,
		Steps: []resource.TestStep{
			identityStep(cfg, tplAddr, map[string]knownvalue.Check{"template_id": knownvalue.NotNull()}),
			{
				// E2B does not return a template's build inputs, so the plan
				// after an import builds once to adopt the configuration.
				Config:             cfg,
				ResourceName:       tplAddr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithResourceIdentity,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

func TestAccTemplate_dockerfileStartCommand(t *testing.T) {
	// The emulator has no ubuntu image; it may build this one on the host's root.
	srv := newTestEmulatorWith(t, emulator.Options{HostRootImages: []string{"ubuntu:22.04"}})
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"server.sh": "#!/bin/bash\necho serving > /tmp/served\nexec sleep 600\n", "unused.md": "x\n"})
	// Outside /home/user and /tmp the emulator gives commands a private root
	// only as root on Linux; elsewhere the image's files go under home.
	appDir := "/app"
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		appDir = "/home/user/app"
	}
	dockerfile := fmt.Sprintf(`FROM ubuntu:22.04
ARG GREETING=hi
ENV APP_DIR=%[1]s
WORKDIR $APP_DIR
COPY --chmod=0755 server.sh ./
RUN echo "$GREETING from the Dockerfile" > built.txt
EXPOSE 8080
USER user
CMD ["%[1]s/server.sh"]
`, appDir)
	cfg := testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name       = "acc-dockerfile"
  dockerfile = %q
  context    = %q
  ready      = { file = "/tmp/served" }
}
`, dockerfile, dir)
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config:             cfg,
			ExpectNonEmptyPlan: false,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_status"), knownvalue.StringExact("ready")),
			},
			Check: checkSandboxSees(t, srv, "acc-dockerfile", `pwd; cat built.txt; cat /tmp/served; echo "$APP_DIR"; pgrep -f server.sh >/dev/null && echo running`,
				appDir, "hi from the Dockerfile", "serving", "running"),
		},
		{
			PreConfig:        func() { harness.WriteTree(t, dir, map[string]string{"unused.md": "edited\n"}) },
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	}))
}

// testAccTemplateBuildFails applies template (HCL of an e2b_template) against a new emulator and
// wants the apply to fail with an error matching wantErr, leaving no template behind.
func testAccTemplateBuildFails(t *testing.T, template, wantErr string) {
	t.Helper()
	srv := newTestEmulator(t)
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config:      testAccProviderBlock(srv) + template,
			ExpectError: regexp.MustCompile(wantErr),
		},
	}))
}

func TestAccTemplate_failedBuildNamesStep(t *testing.T) {
	testAccTemplateBuildFails(t, `
resource "e2b_template" "app" {
  name          = "acc-fails"
  from_template = "base"
  steps = [
    { run = { command = "echo step one" } },
    { run = { command = "echo 'compiling the thing'; echo 'error: missing dependency libfoo' >&2; exit 7" } },
  ]
}
`, `(?s)Template build failed.*in step 2 \(RUN echo 'compiling.*missing dependency libfoo`)
}

// A failing step's output is the build's own (hostile) code: its terminal sequences reach the
// error escaped, never as raw escape bytes.
func TestAccTemplate_failedBuildLogEscaped(t *testing.T) {
	testAccTemplateBuildFails(t, `
resource "e2b_template" "app" {
  name          = "acc-fails-escaped"
  from_template = "base"
  steps = [
    { run = { command = "printf 'clear\\033[2J\\033]0;pwned\\007 done\\n' >&2; exit 3" } },
  ]
}
`, `(?s)Template build failed.*clear\\x1b\[2J\\x1b\]0;pwned\\x07 done`)
}

func TestAccTemplate_planTimeErrors(t *testing.T) {
	srv := newTestEmulator(t)
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"present.txt": "x\n"})
	base := func(body string) string {
		return testAccProviderBlock(srv) + "resource \"e2b_template\" \"app\" {\n  name = \"acc-bad\"\n" + body + "\n}\n"
	}
	cases := []struct {
		body string
		want string
	}{
		{`  dockerfile = "FROM golang AS b\nRUN go build\nFROM debian\n"`, `line 3: multi-stage`},
		{`  dockerfile = "FROM debian\nRUN --mount=type=cache,target=/c make\n"`, `RUN --mount cannot be built`},
		{fmt.Sprintf(`  from_template = "base"
  context = %q
  steps = [{ copy = { src = "missing.txt", dest = "/x" } }]`, dir), `(?s)step 1 \(COPY missing.txt\).*no files found`},
		{`  from_template = "base"
  steps = [{ copy = { src = "present.txt", dest = "/x" } }]`, `must name the local directory`},
		{`  from_template = "base"
  steps = [{ copy = { src = "../etc/passwd", dest = "/x" } }]`, `leaves the context directory`},
		{`  from_template = "base"
  from_image    = "ubuntu"`, `(?s)Only one of from_image, from_template.*from_image and\s+from_template are`},
		{`  from_template = "base"
  steps = [{ workdir = "/a", user = "x" }]`, `(?s)only one\)`},
		{`  name2 = 1`, `Unsupported argument`},
		{`  public = false`, `(?s)A new template needs one of from_image`},
		{`  from_image_registry = { image = "ghcr.io/x/y", username = "me" }`, `needs both .username. and\s+.password_wo.`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			resource.Test(t, testAccCase(t, nil, []resource.TestStep{planErrorStep(base(c.body), c.want)}))
		})
	}
	testAccCheckNoRequests(t, srv, "invalid configurations")
}

// E2B builds into an existing template of the same name. Creating the
// resource must not take over a template it does not own (destroying it
// would delete someone else's template): it is refused, pointing at import.
func TestAccTemplate_refusesTakenName(t *testing.T) {
	srv := newTestEmulator(t)
	c := testAccClient(t, srv)
	ctx := context.Background()
	theirs, err := c.BuildTemplate(ctx, e2b.TemplateBuildSpec{
		Name: "acc-taken", FromTemplate: "base", Steps: []e2b.BuildStep{e2b.RunStep("echo theirs", "")},
	}, e2b.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{{
		Config: testAccProviderBlock(srv) + `
resource "e2b_template" "app" {
  name          = "acc-taken"
  from_template = "base"
  steps         = [{ run = { command = "echo ours" } }]
}
`,
		ExpectError: regexp.MustCompile(`(?s)Template already exists.*` + theirs.TemplateID + `.*import`),
	}}))
	got, err := c.GetTemplate(ctx, theirs.TemplateID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Builds) != 1 || got.Builds[0].BuildID != theirs.BuildID {
		t.Errorf("the existing template has builds %+v; want only its own build %s", got.Builds, theirs.BuildID)
	}
}
