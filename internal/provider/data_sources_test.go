package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// e2b_templates pages past 100; e2b_template finds one by ID and by name, with all builds.
func TestAccDataSource_templates(t *testing.T) {
	srv := newTestEmulator(t)
	const seeded = 120
	for i := range seeded {
		srv.SeedTemplate(emulator.TemplateSeed{
			TemplateID: fmt.Sprintf("acctpl%03d", i),
			Names:      []string{fmt.Sprintf("local-team/acc-tpl-%03d", i)},
			Builds:     1 + i%3,
		})
	}
	srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "accmanybuilds", Names: []string{"local-team/many-builds"}, Builds: 130})
	cfg := testAccProviderBlock(srv) + `
data "e2b_templates" "all" {}
data "e2b_template" "by_name" { name = "local-team/acc-tpl-007" }
data "e2b_template" "by_id" { template_id = "accmanybuilds" }
`
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.e2b_template.by_name", tfjsonpath.New("template_id"), knownvalue.StringExact("acctpl007")),
			statecheck.ExpectKnownValue("data.e2b_template.by_name", tfjsonpath.New("builds"), knownvalue.ListSizeExact(2)),
			statecheck.ExpectKnownValue("data.e2b_template.by_id", tfjsonpath.New("name"), knownvalue.StringExact("local-team/many-builds")),
			statecheck.ExpectKnownValue("data.e2b_template.by_id", tfjsonpath.New("builds"), knownvalue.ListSizeExact(130)),
		},
		Check: func(s *terraform.State) error {
			attrs := s.RootModule().Resources["data.e2b_templates.all"].Primary.Attributes
			n, _ := strconv.Atoi(attrs["templates.#"])
			found := 0
			for i := range n {
				if strings.HasPrefix(attrs[fmt.Sprintf("templates.%d.template_id", i)], "acctpl") {
					found++
				}
			}
			if found != seeded {
				return fmt.Errorf("e2b_templates returned %d of the %d seeded templates (%d in all)", found, seeded, n)
			}
			return nil
		},
	}}))
}

// e2b_sandboxes pages past 100 and filters; e2b_sandbox, metrics, logs and snapshots read one sandbox.
func TestAccDataSource_sandboxes(t *testing.T) {
	// Parallel before the sandboxes exist: a test waiting for its slot must not outlive their timeout.
	t.Parallel()
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	ctx := context.Background()
	const many = 105
	var first string
	secure := true
	for i := range many {
		sb, err := client.CreateSandbox(ctx, e2b.CreateSandboxRequest{
			TemplateID: "base", Timeout: 600, Secure: &secure,
			Metadata: map[string]string{"suite": "ds", "n": strconv.Itoa(i)},
		})
		if err != nil {
			t.Fatalf("create sandbox %d: %v", i, err)
		}
		if i == 0 {
			first = sb.SandboxID
		}
	}
	// One paused sandbox with other metadata, to see the state and metadata filters work.
	paused, err := client.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600, Metadata: map[string]string{"suite": "other"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.PauseSandbox(ctx, paused.SandboxID); err != nil {
		t.Fatal(err)
	}
	snap, err := client.CreateSnapshot(ctx, first, "acc-snap")
	if err != nil {
		t.Fatalf("create snapshot: %v", err)
	}
	before := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)

	future := func(d time.Duration) config.Variable {
		return config.StringVariable(time.Now().Add(d).UTC().Format(time.RFC3339))
	}
	vars := config.Variables{"first": config.StringVariable(first), "started_after": config.StringVariable(before),
		"future_start": future(time.Hour), "future_end": future(2 * time.Hour)}
	resource.Test(t, testAccCase(t, nil, []resource.TestStep{{
		Config:          testAccProviderBlock(srv) + testAccTestdata(t),
		ConfigVariables: vars,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.e2b_sandboxes.suite", tfjsonpath.New("ids"), knownvalue.ListSizeExact(many)),
			statecheck.ExpectKnownValue("data.e2b_sandboxes.paused", tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(paused.SandboxID)})),
			statecheck.ExpectKnownValue("data.e2b_sandboxes.by_template", tfjsonpath.New("ids"), knownvalue.ListSizeExact(many)),
			statecheck.ExpectKnownValue("data.e2b_sandbox.one", tfjsonpath.New("state"), knownvalue.StringExact("running")),
			statecheck.ExpectKnownValue("data.e2b_sandbox.one", tfjsonpath.New("metadata"), knownvalue.MapExact(map[string]knownvalue.Check{
				"suite": knownvalue.StringExact("ds"), "n": knownvalue.StringExact("0"),
			})),
			statecheck.ExpectKnownValue("data.e2b_sandbox.one", tfjsonpath.New("envd_access_token"), knownvalue.NotNull()),
			statecheck.ExpectKnownValue("data.e2b_sandbox_logs.search", tfjsonpath.New("logs"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"message": knownvalue.StringExact("Snapshot created"), "level": knownvalue.StringExact("info")}),
			})),
			statecheck.ExpectKnownValue("data.e2b_sandbox_logs.search", tfjsonpath.New("next_cursor"), knownvalue.NotNull()),
			statecheck.ExpectKnownValue("data.e2b_sandbox_logs.warnings", tfjsonpath.New("logs"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue("data.e2b_sandbox_metrics.future", tfjsonpath.New("metrics"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue("data.e2b_snapshots.of_first", tfjsonpath.New("snapshots"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"snapshot_id": knownvalue.StringExact(snap.SnapshotID)}),
			})),
		},
		Check: resource.ComposeTestCheckFunc(
			resource.TestCheckResourceAttrSet("data.e2b_sandbox_metrics.one", "metrics.#"),
			resource.TestCheckResourceAttrSet("data.e2b_sandbox_logs.one", "logs.#"),
			func(s *terraform.State) error {
				attrs := s.RootModule().Resources["data.e2b_sandbox_logs.one"].Primary.Attributes
				if n, _ := strconv.Atoi(attrs["logs.#"]); n < 1 || n > 5 {
					return fmt.Errorf("e2b_sandbox_logs returned %d entries, want 1..5 (limit 5)", n)
				}
				return nil
			},
		),
	}}))
	if c := srv.Counters(); c.SandboxesCreated != many+1 {
		t.Errorf("data sources changed something: %d sandboxes created, want %d", c.SandboxesCreated, many+1)
	}
}

// The data sources that read one sandbox name the attribute when E2B does
// not know the sandbox, in the same words.
func TestAccSandboxDataSources_unknownSandbox(t *testing.T) {
	srv := newTestEmulator(t)
	notFound := regexp.MustCompile(`(?s)Sandbox not found.*Sandbox ighost does not exist: it expired, was killed, or belongs\s+to\s+another\s+team`)
	var steps []resource.TestStep
	for _, body := range []string{
		`data "e2b_sandbox" "x" { id = "ighost" }`,
		`data "e2b_sandbox_logs" "x" { sandbox_id = "ighost" }`,
		`data "e2b_sandbox_metrics" "x" { sandbox_id = "ighost" }`,
	} {
		steps = append(steps, resource.TestStep{Config: testAccProviderBlock(srv) + body, ExpectError: notFound})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
