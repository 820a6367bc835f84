package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// current holds envd's reading of a running sandbox, with the newest fields (CPU hotplug; the
// emulator does not know the guest's out-of-memory kills, so oom_kills is null); it is null
// while the sandbox is paused.
func TestAccSandboxMetricsDataSource_current(t *testing.T) {
	srv := newTestEmulator(t)
	client := testAccClient(t, srv)
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.KillSandbox(context.Background(), sb.SandboxID) })
	cfg := testAccProviderBlock(srv) + `data "e2b_sandbox_metrics" "now" { sandbox_id = "` + sb.SandboxID + `" }`
	cur := tfjsonpath.New("current")
	addr := "data.e2b_sandbox_metrics.now"
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("cpu_count"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("cpu_possible"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("cpu_target"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("cpu_write_pending_ms"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("mem_total"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(addr, cur.AtMapKey("oom_kills"), knownvalue.Null()),
			},
		},
		{
			PreConfig: func() {
				if err := client.PauseSandbox(context.Background(), sb.SandboxID); err != nil {
					t.Fatal(err)
				}
			},
			Config:            cfg,
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, cur, knownvalue.Null())},
		},
	}))
}
