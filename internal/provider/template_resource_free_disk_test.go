package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
)

func freeDiskTemplateConfig(srv *emulator.Server, minFree string) string {
	return testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_template" "app" {
  name             = "acc-free-disk"
  from_template    = "base"
  steps            = [{ run = { command = "echo built" } }]
  min_free_disk_mb = %s
}
`, minFree)
}

// min_free_disk_mb goes with the build request: a change is a new build, and a value above what
// E2B allows (the emulator allows its data dir's free space) is refused naming the attribute.
// E2B never reports the value back, so there is no drift to read.
func TestAccTemplate_minFreeDiskMB(t *testing.T) {
	dir := t.TempDir()
	srv := newTestEmulatorWith(t, emulator.Options{DataDir: dir})
	free := hostfs.FreeMiB(dir)
	if free < 0 {
		t.Skip("the emulator reads its data dir's free space only on Linux, so it refuses no min_free_disk_mb here")
	}
	newBuild := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config: freeDiskTemplateConfig(srv, "0"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("min_free_disk_mb"), knownvalue.Int32Exact(0)),
				statecheck.ExpectKnownValue(tplAddr, tfjsonpath.New("build_status"), knownvalue.StringExact("ready")),
				newBuild.AddStateValue(tplAddr, tfjsonpath.New("build_id")),
			},
		},
		{
			// Nothing changed: no new build.
			Config:           freeDiskTemplateConfig(srv, "0"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		{
			Config: freeDiskTemplateConfig(srv, "1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tplAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{newBuild.AddStateValue(tplAddr, tfjsonpath.New("build_id"))},
		},
		{
			// Far above any disk: the free space other processes leave changes while the test runs.
			Config:      freeDiskTemplateConfig(srv, fmt.Sprint(e2b.MaxMinFreeDiskMB)),
			ExpectError: regexp.MustCompile(`(?s)min_free_disk_mb above the team's allowance.*Lower\s+min_free_disk_mb.*Free\s+disk\s+space\s+can't\s+be\s+higher`),
		},
	}))
}

// A negative min_free_disk_mb is refused at plan time, before any request.
func TestAccTemplate_minFreeDiskMBRefusedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	testAccRefusedWithoutRequests(t, srv, []resource.TestStep{
		planErrorStep(freeDiskTemplateConfig(srv, "-1"), `(?s)min_free_disk_mb.*between 0 and`),
	})
}
