package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// TestAccTemplateBuildDataSource_failedBuild reads a build that failed: its
// status, reason and failing step, and its log filtered by level and limit.
func TestAccTemplateBuildDataSource_failedBuild(t *testing.T) {
	srv := newTestEmulator(t)
	_, err := testAccClient(t, srv).BuildTemplate(context.Background(), e2b.TemplateBuildSpec{
		Name: "acc-build-ds", FromTemplate: "base",
		Steps: []e2b.BuildStep{
			e2b.RunStep("for i in 1 2 3 4 5; do echo line-$i; done", ""),
			e2b.RunStep("echo 'fatal: no such package' >&2; exit 4", ""),
		},
	}, e2b.BuildOptions{PollInterval: 20 * time.Millisecond})
	var bf *e2b.BuildFailedError
	if !errors.As(err, &bf) {
		t.Fatalf("the build should fail: %v", err)
	}
	const addr = "data.e2b_template_build.failed"
	cfg := testAccProviderBlock(srv) + fmt.Sprintf(`
data "e2b_template_build" "failed" {
  template  = "acc-build-ds"
  build_id  = %q
  log_level = "error"
}

data "e2b_template_build" "tail" {
  template  = %q
  build_id  = %q
  log_limit = 2
}
`, bf.BuildID, bf.TemplateID, bf.BuildID)
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("error")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("reason_step"), knownvalue.StringExact("2")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("reason"), knownvalue.StringRegexp(regexp.MustCompile(`4`))),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("template_id"), knownvalue.StringExact(bf.TemplateID)),
			statecheck.ExpectKnownValue("data.e2b_template_build.tail", tfjsonpath.New("log_entries"), knownvalue.ListSizeExact(2)),
		},
		Check: func(s *terraform.State) error {
			attrs := s.RootModule().Resources[addr].Primary.Attributes
			if attrs["log_entries.#"] == "0" {
				return fmt.Errorf("no error-level log entries for a failed step")
			}
			found := false
			for i := 0; attrs[fmt.Sprintf("log_entries.%d.level", i)] != ""; i++ {
				if lvl := attrs[fmt.Sprintf("log_entries.%d.level", i)]; lvl != "error" {
					return fmt.Errorf("log_level = \"error\" returned a %s entry", lvl)
				}
				found = found || regexp.MustCompile(`no such package`).MatchString(attrs[fmt.Sprintf("log_entries.%d.message", i)])
			}
			if !found {
				return fmt.Errorf("the failing step's stderr is not among the error entries: %v", attrs)
			}
			return nil
		},
	}, {
		Config: testAccProviderBlock(srv) + `
data "e2b_template_build" "x" {
  template = "acc-build-ds"
  build_id = "00000000-0000-4000-8000-000000000000"
}
`,
		ExpectError: regexp.MustCompile(`Build not found`),
	}}))
}
