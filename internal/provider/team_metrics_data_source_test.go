package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// A range that ends before it starts, starts before 1970 (E2B takes Unix
// seconds from 0) or ends after 2299 (E2B's metrics store ends there) is
// refused naming the attribute, without a request.
func TestAccTeamMetrics_rangeValidation(t *testing.T) {
	srv := newTestEmulator(t)
	for _, tc := range []struct{ body, want string }{
		{"start = \"2026-01-02T00:00:00Z\"\n  end = \"2026-01-01T00:00:00Z\"",
			`(?s)Invalid time range.*\d+:\s+end\s+= "2026-01-01T00:00:00Z".*before start`},
		{"start = \"1969-12-31T23:59:59Z\"", `(?s)Invalid time range.*\d+:\s+start\s+= "1969-12-31T23:59:59Z".*1970`},
		{"start = \"2026-01-01T00:00:00Z\"\n  end = \"2300-01-01T00:00:00Z\"",
			`(?s)Invalid time range.*\d+:\s+end\s+= "2300-01-01T00:00:00Z".*after 2299-12-31T23:59:59Z`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderBlock(srv) + "data \"e2b_team_metrics\" \"m\" {\n  team_id = \"team-1\"\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	testAccCheckNoRequests(t, srv, "invalid ranges")
}

// e2b_team_metrics reads the emulator's real samples.
func TestAccTeamMetrics(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + `
resource "e2b_sandbox" "one" {
  timeout = "15m"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { time.Sleep(6 * time.Second) }, // one sampling interval
				Config: cfg + fmt.Sprintf(`
data "e2b_team_metrics" "team" {
  team_id = %q
}
`, srv.TeamID()),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.e2b_team_metrics.team", tfjsonpath.New("max_concurrent_sandboxes").AtMapKey("value"), knownvalue.Float64Exact(1)),
					statecheck.ExpectKnownValue("data.e2b_team_metrics.team", tfjsonpath.New("metrics").AtSliceIndex(0).AtMapKey("concurrent_sandboxes"), knownvalue.Int64Exact(0)),
				},
			},
			{
				Config:      cfg + "data \"e2b_team_metrics\" \"team\" {\n  team_id = \"someone-else\"\n}\n",
				ExpectError: regexp.MustCompile(`(?s)Could not read team metrics.*403`),
			},
		},
	})
}
