package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
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
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const tagAddr = "e2b_template_tag.prod"

func TestAccTemplateTag_promoteMoveImportRemove(t *testing.T) {
	srv := newTestEmulator(t)
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "release one\n"})
	var firstBuild captured
	template := stepsTemplateConfig(srv, "acc-promote", dir)
	promoted := template + testAccTestdata(t, "tag.tf")
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: promoted,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs(tagAddr, tfjsonpath.New("build_id"), tplAddr, tfjsonpath.New("build_id"), compare.ValuesSame()),
				statecheck.ExpectKnownValue(tagAddr, tfjsonpath.New("id"), knownvalue.StringExact("acc-promote:prod")),
				statecheck.ExpectKnownValue(tagAddr, tfjsonpath.New("created_at"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.e2b_template_build.current", tfjsonpath.New("status"), knownvalue.StringExact("ready")),
				statecheck.ExpectKnownValue("data.e2b_template.base", tfjsonpath.New("tags"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.e2b_template_build.current", tfjsonpath.New("log_entries"), knownvalue.ListSizeExact(3)),
				statecheck.ExpectKnownValue("data.e2b_template.app", tfjsonpath.New("tags"), knownvalue.ListPartial(map[int]knownvalue.Check{
					1: knownvalue.ObjectPartial(map[string]knownvalue.Check{"tag": knownvalue.StringExact("prod")}),
				})),
			},
			Check: resource.ComposeTestCheckFunc(
				firstBuild.save(tplAddr, "build_id"),
				checkListedTag("acc-promote", "prod"),
				checkSandboxFileContains(t, srv, "e2b_sandbox.prod", "/home/user/app/hello.txt", "release one"),
			),
		},
		{
			// A new build moves the tag in place; the sandbox stays.
			PreConfig: func() { harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "release two\n"}) },
			Config:    promoted,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction(tagAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("e2b_sandbox.prod", plancheck.ResourceActionNoop),
			}},
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					build, _ := testAccAttr(s, tagAddr, "build_id")
					if build == firstBuild.v {
						return fmt.Errorf("the prod tag still points at the first build %s", build)
					}
					return nil
				},
				checkSandboxSees(t, srv, "acc-promote:prod", "cat /home/user/app/hello.txt", "release two"),
			),
		},
		{
			ResourceName:      tagAddr,
			ImportState:       true,
			ImportStateId:     "acc-promote:prod",
			ImportStateVerify: true,
		},
		{
			// Destroying the tag removes only the tag.
			Config: template,
			Check: func(s *terraform.State) error {
				tags, err := testAccClient(t, srv).ListTemplateTags(context.Background(), "acc-promote")
				if err != nil {
					return fmt.Errorf("the template should still be there: %v", err)
				}
				kept := false
				for _, tg := range tags {
					if tg.Tag == "prod" {
						return fmt.Errorf("tag prod still exists after its resource was destroyed: %+v", tags)
					}
					kept = kept || tg.Tag == "default"
				}
				if !kept {
					return fmt.Errorf("destroying tag prod removed other tags too: %+v", tags)
				}
				return nil
			},
		},
	}))
}

func TestAccTemplateTag_refusesDefaultAndUnknownBuild(t *testing.T) {
	srv := newTestEmulator(t)
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"app/hello.txt": "x\n"})
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config: testAccProviderBlock(srv) + `
resource "e2b_template_tag" "bad" {
  template = "anything"
  tag      = "default"
  build_id = "b"
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)tag.*must be none of`),
		},
		{
			Config: stepsTemplateConfig(srv, "acc-tag-missing", dir) + `
resource "e2b_template_tag" "bad" {
  template = e2b_template.app.name
  tag      = "prod"
  build_id = "00000000-0000-4000-8000-000000000000"
}
`,
			ExpectError: regexp.MustCompile(`(?s)Build not found|not found`),
		},
	}))
}

// checkListedTag finds the tag on the template in data.e2b_templates.all.
func checkListedTag(name, tag string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources["data.e2b_templates.all"].Primary.Attributes
		for i := 0; attrs[fmt.Sprintf("templates.%d.template_id", i)] != ""; i++ {
			if !strings.HasSuffix(attrs[fmt.Sprintf("templates.%d.names.0", i)], "/"+name) {
				continue
			}
			for j := 0; attrs[fmt.Sprintf("templates.%d.tags.%d.tag", i, j)] != ""; j++ {
				if attrs[fmt.Sprintf("templates.%d.tags.%d.tag", i, j)] == tag {
					return nil
				}
			}
			return fmt.Errorf("e2b_templates lists %s without tag %s", name, tag)
		}
		return fmt.Errorf("e2b_templates does not list %s", name)
	}
}

// checkSandboxFileContains reads a file in the sandbox resource at address.
func checkSandboxFileContains(t *testing.T, srv *emulator.Server, address, file, want string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		envd, err := testAccEnvd(s, testAccClient(t, srv), address)
		if err != nil {
			return err
		}
		res, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: "cat " + file})
		if err != nil {
			return err
		}
		if !strings.Contains(res.Stdout, want) {
			return fmt.Errorf("%s in %s holds %q, want %q", file, address, res.Stdout, want)
		}
		return nil
	}
}

// E2B lower-cases tags and reads a tag after a colon as a build: a tag with
// capitals would vanish on the next read (and be created again on every
// apply), and a tag given as build_id would change under the resource. Both
// are refused at plan time, before any request.
func TestAccTemplateTag_planTimeTagAndBuildRules(t *testing.T) {
	srv := newTestEmulator(t)
	cases := []struct{ tag, build, want string }{
		{"Prod", "0cba64aa-ca41-4b29-bc7f-f27f81cecb4d", `(?s)Attribute tag must be lower-case letters`},
		{"0cba64aa-ca41-4b29-bc7f-f27f81cecb4d", "0cba64aa-ca41-4b29-bc7f-f27f81cecb4d", `(?s)Attribute tag must not be a UUID`},
		{"canary", "prod", `(?s)Attribute build_id must be a build ID`},
		{"canary", "0CBA64AA-CA41-4B29-BC7F-F27F81CECB4D", `(?s)Attribute build_id must be a build ID`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			resource.Test(t, testAccCase(t, nil, []resource.TestStep{planErrorStep(testAccProviderBlock(srv)+fmt.Sprintf(`
resource "e2b_template_tag" "bad" {
  template = "app"
  tag      = %q
  build_id = %q
}
`, c.tag, c.build), c.want)}))
		})
	}
	testAccCheckNoRequests(t, srv, "invalid configurations")
}

// A tag that already exists belongs to whoever made it: creating the
// resource must not take it over (and remove it on destroy); it is refused,
// pointing at import, and the tag keeps its build.
func TestAccTemplateTag_refusesExistingTag(t *testing.T) {
	srv := newTestEmulator(t)
	c := testAccClient(t, srv)
	ctx := context.Background()
	spec := e2b.TemplateBuildSpec{Name: "acc-tagged", FromTemplate: "base", Steps: []e2b.BuildStep{e2b.RunStep("echo one", "")}}
	first, err := c.BuildTemplate(ctx, spec, e2b.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.AssignTemplateTags(ctx, "acc-tagged:"+first.BuildID, []string{"prod"}); err != nil {
		t.Fatal(err)
	}
	spec.Steps = []e2b.BuildStep{e2b.RunStep("echo two", "")}
	second, err := c.BuildTemplate(ctx, spec, e2b.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{{
		Config: testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template_tag" "prod" {
  template = "acc-tagged"
  tag      = "prod"
  build_id = %q
}
`, second.BuildID),
		ExpectError: regexp.MustCompile(`(?s)Tag already exists.*` + first.BuildID + `.*import`),
	}}))
	tag, err := findTag(ctx, c, "acc-tagged", "prod")
	if err != nil || tag == nil || tag.BuildID != first.BuildID {
		t.Errorf("tag prod after the refused create: %+v, %v; want it still at build %s", tag, err, first.BuildID)
	}
}
