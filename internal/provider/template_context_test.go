package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// copyTemplateConfig is a template copying src from dir, with extra
// attributes.
func copyTemplateConfig(srv *emulator.Server, name, dir, src, extra string) string {
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name          = %q
  from_template = "base"
  context       = %q
  steps         = [{ copy = { src = %q, dest = "/home/user/app" } }]
%s
}
`, name, dir, src, extra)
}

// outsideContext makes dir/ctx next to dir/outside, which holds a secret,
// and returns both.
func outsideContext(t *testing.T) (string, string) {
	t.Helper()
	root := t.TempDir()
	ctxDir, outside := filepath.Join(root, "ctx"), filepath.Join(root, "outside")
	harness.WriteTree(t, outside, map[string]string{"creds.txt": "SECRET-OUTSIDE\n"})
	harness.WriteTree(t, ctxDir, map[string]string{"app/hello.txt": "hello\n", "sub/file.txt": "sub\n"})
	for link, target := range map[string]string{
		"linkdir":     "../outside",
		"sub/inner":   "../../outside",
		"filelink":    "../outside/creds.txt",
		"chain1":      "chain2",
		"chain2":      outside,
		"app/out.txt": filepath.Join(outside, "creds.txt"),
		"app/in.txt":  "hello.txt",
	} {
		if err := os.Symlink(target, filepath.Join(ctxDir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ctxDir, outside
}

// A COPY never reads through a link out of the context: the plan fails
// naming the link, before anything reaches E2B, whatever the link form and
// whether the steps or a Dockerfile copy.
func TestAccTemplate_contextLinkOutsideRefused(t *testing.T) {
	srv := newTestEmulator(t)
	dir, _ := outsideContext(t)
	dockerfile := func(line string) string {
		return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name       = "acc-escape"
  dockerfile = %q
  context    = %q
}
`, "FROM ubuntu:22.04\n"+line+"\n", dir)
	}
	// Terraform wraps long messages: any space may be a line break.
	words := func(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }
	testAccRefusedWithoutRequests(t, srv, []resource.TestStep{
		planErrorStep(copyTemplateConfig(srv, "acc-escape", dir, "sub", ""), words(`"sub/inner" is a symbolic link to "../../outside", outside the context directory`)),
		planErrorStep(copyTemplateConfig(srv, "acc-escape", dir, "linkdir/creds.txt", ""), words(`"linkdir" is a symbolic link to "../outside"`)),
		planErrorStep(copyTemplateConfig(srv, "acc-escape", dir, "chain1/*", ""), words(`"chain1" leads outside the context directory through the symbolic link "chain2"`)),
		planErrorStep(strings.Replace(copyTemplateConfig(srv, "acc-escape", dir, "filelink", ""), `dest = "/home/user/app" }`, `dest = "/home/user/app", resolve_symlinks = true }`, 1),
			words(`"filelink" is a symbolic link to "../outside/creds.txt"`)),
		planErrorStep(dockerfile("COPY linkdir/creds.txt /tmp/"), words(`"linkdir" is a symbolic link`)),
		planErrorStep(dockerfile("COPY sub /sub"), words(`"sub/inner" is a symbolic link`)),
	})
}

// Links a COPY only sends as links (wherever they point) build, and the
// template holds the link, never the file outside the context.
func TestAccTemplate_contextLinksSentAsLinks(t *testing.T) {
	srv := newTestEmulator(t)
	dir, _ := outsideContext(t)
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{{
		Config: copyTemplateConfig(srv, "acc-links", dir, "app", ""),
		Check: func(s *terraform.State) error {
			out, err := sandboxExec(t, srv, "acc-links", `cd /home/user/app && readlink out.txt; cat in.txt; cat out.txt 2>&1`)
			if err != nil {
				return err
			}
			if strings.Contains(out, "SECRET-OUTSIDE") {
				return fmt.Errorf("the template holds the file outside the context: %q", out)
			}
			if !strings.Contains(out, "creds.txt") || !strings.Contains(out, "hello") {
				return fmt.Errorf("a sandbox sees %q; want the link's target and the file linked inside", out)
			}
			return nil
		},
	}}))
}

// context = path.module with COPY . (the docs' Dockerfile example): the
// working directory holds Terraform's own files, which change during every
// run. They are never part of the context: the template builds, converges,
// and holds none of them.
func TestAccTemplate_contextIsTheModule(t *testing.T) {
	// The emulator has no ubuntu image; it may build this one on the host's root.
	srv := newTestEmulatorWith(t, emulator.Options{HostRootImages: []string{"ubuntu:22.04"}})
	cfg := testAccProviderBlock(srv) + `
resource "e2b_template" "app" {
  name       = "acc-module"
  dockerfile = "FROM ubuntu:22.04\nCOPY . /home/user/app/\n"
  context    = abspath(path.module)
}
`
	// What the working directory holds, as the CLI leaves it.
	listing := func(s *terraform.State) error {
		out, err := sandboxExec(t, srv, "acc-module", `ls -A /home/user/app`)
		if err != nil {
			return err
		}
		for _, f := range strings.Fields(out) {
			if f == ".terraform" || strings.Contains(f, "tfstate") || f == "tfplan" || f == ".terraform.lock.hcl" {
				return fmt.Errorf("the template holds Terraform's working file %s (all: %q)", f, out)
			}
		}
		if !strings.Contains(out, ".tf") {
			return fmt.Errorf("the template lacks the configuration file: %q", out)
		}
		return nil
	}
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{Config: cfg, Check: listing},
		{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
	}))
}

// A file edited between plan and apply: the apply stops with the
// provider's own message (not Terraform's "inconsistent final plan") and
// builds nothing; the next plan builds what is there.
func TestAccTemplate_contextChangedBetweenPlanAndApply(t *testing.T) {
	srv := newTestEmulator(t)
	cfg, dir := stepsTemplateWithContext(t, srv, "acc-changed", map[string]string{"app/hello.txt": "version one\n"})
	edit := func(v string) planCheckFunc {
		return func() error {
			harness.WriteTree(t, dir, map[string]string{"app/hello.txt": v + "\n"})
			return nil
		}
	}
	var first, second captured
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{Config: cfg, Check: first.save(tplAddr, "build_id")},
		{
			// The plan shows the new digest; the file changes again
			// before apply.
			PreConfig: func() { harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "version two\n"}) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(tplAddr, tfjsonpath.New("context_sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
				edit("version three"),
			}},
			ExpectError: regexp.MustCompile(`(?s)Context changed during apply.*Run plan again`),
		},
		{
			// Nothing was built: the first build is still the template's,
			// and the next plan builds what the file holds now.
			Config: cfg,
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					builds, err := testAccClient(t, srv).GetTemplate(context.Background(), "acc-changed")
					if err != nil {
						return err
					}
					if len(builds.Builds) != 2 {
						return fmt.Errorf("the template has %d builds; want 2 (the refused apply built nothing)", len(builds.Builds))
					}
					return nil
				},
				second.save(tplAddr, "build_id"),
				checkSandboxSees(t, srv, "acc-changed", `cat hello.txt`, "version three"),
			),
		},
		{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
	}))
	if first.v == second.v {
		t.Errorf("the plan after the refused apply built nothing (build %s)", first.v)
	}
}

// A new template has no build to compare with: its digest is known after
// apply, and a file edited between plan and apply is built as it is then.
// An update that builds nothing (public) is not disturbed by an edit either:
// the edit is built by the next plan.
func TestAccTemplate_contextEditedBeforeApplyWithoutBuild(t *testing.T) {
	srv := newTestEmulator(t)
	cfg, dir := stepsTemplateWithContext(t, srv, "acc-edited", map[string]string{"app/hello.txt": "version one\n"})
	public := withTemplateAttribute(cfg, "public = true")
	var first captured
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("context_sha256")),
				planCheckFunc(func() error {
					harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "version two\n"})
					return nil
				}),
			}},
			Check: resource.ComposeTestCheckFunc(
				first.save(tplAddr, "build_id"),
				checkSandboxSees(t, srv, "acc-edited", `cat hello.txt`, "version two"),
			),
		},
		{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{
			Config: public,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_id"), knownvalue.NotNull()),
				planCheckFunc(func() error {
					harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "version three\n"})
					return nil
				}),
			}},
			ExpectNonEmptyPlan: true, // the edit is built by the next plan
			Check: func(s *terraform.State) error {
				if b, _ := testAccAttr(s, tplAddr, "build_id"); b != first.v {
					return fmt.Errorf("build %s after an update that only made the template public; want %s", b, first.v)
				}
				return nil
			},
		},
		{
			Config: public,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("build_id")),
			}},
			Check: checkSandboxSees(t, srv, "acc-edited", `cat hello.txt`, "version three"),
		},
	}))
}

// A file mode that differs only by umask plans no build with
// normalize_file_modes, and a new build without it.
func TestAccTemplate_normalizeFileModes(t *testing.T) {
	srv := newTestEmulator(t)
	cfg, dir := stepsTemplateWithContext(t, srv, "acc-modes", map[string]string{"app/hello.txt": "hello\n"})
	normalized := withTemplateAttribute(cfg, "normalize_file_modes = true")
	umask002 := func() {
		for _, p := range []string{"app", "app/hello.txt"} {
			mode := os.FileMode(0o664)
			if p == "app" {
				mode = 0o775
			}
			if err := os.Chmod(filepath.Join(dir, p), mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{Config: cfg},
		// Files made with umask 022: turning it on changes nothing.
		{Config: normalized, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_id"), knownvalue.NotNull()),
		}}},
		{PreConfig: umask002, Config: normalized, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectUnknownValue(tplAddr, tfjsonpath.New("build_id")),
		}}, ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_status"), knownvalue.StringExact("ready")),
		}},
	}))
}

// plannedContext decides what the plan can promise about the context.
func TestPlannedContext(t *testing.T) {
	spec := &templateSpec{digest: "now", copyInputs: "in"}
	state := &templateResourceModel{ContextSHA256: types.StringValue("built")}
	cases := []struct {
		name    string
		spec    *templateSpec
		rec     *contextRecord
		state   *templateResourceModel
		want    types.String
		warning bool
	}{
		{"no copy step", &templateSpec{}, nil, state, types.StringNull(), false},
		{"create", spec, nil, nil, types.StringUnknown(), false},
		{"refresh read the same", spec, &contextRecord{Inputs: "in", SHA256: "now"}, state, types.StringValue("now"), false},
		{"changed since the refresh", spec, &contextRecord{Inputs: "in", SHA256: "then"}, state, types.StringValue("then"), true},
		{"steps changed", spec, &contextRecord{Inputs: "other", SHA256: "then"}, state, types.StringUnknown(), false},
		{"no record, unchanged", spec, nil, &templateResourceModel{ContextSHA256: types.StringValue("now")}, types.StringValue("now"), false},
		{"no record, changed", spec, nil, state, types.StringUnknown(), false},
		{"replace, record carried", spec, &contextRecord{Inputs: "in", SHA256: "now"}, nil, types.StringValue("now"), false},
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		got := plannedContext(c.spec, c.rec, c.state, &diags)
		if !got.Equal(c.want) {
			t.Errorf("%s: planned %s; want %s", c.name, got, c.want)
		}
		if (diags.WarningsCount() > 0) != c.warning {
			t.Errorf("%s: warnings %v; want a warning: %v", c.name, diags, c.warning)
		}
	}
}
