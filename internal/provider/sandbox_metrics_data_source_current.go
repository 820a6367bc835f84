package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// The current attribute of e2b_sandbox_metrics: what envd inside the sandbox measures at the
// read, which carries what E2B's series does not (CPU hotplug, out-of-memory kills).

var oomKillAttrTypes = convert.NestedAttrTypes(oomKillAttributes())

func oomKillAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"seq": schema.Int64Attribute{Computed: true, MarkdownDescription: "Kernel log sequence number of the kill; it only grows, across pauses."},
		"process": schema.StringAttribute{Computed: true,
			MarkdownDescription: "Name of the killed process, or `Unknown` when the kernel's record does not show it."},
	}
}

func currentMetricsAttributes() map[string]schema.Attribute {
	i64 := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	return map[string]schema.Attribute{
		"timestamp":            base.ComputedDataSourceTime("The sandbox's time of the reading (RFC 3339)."),
		"cpu_count":            i64("CPUs online."),
		"cpu_possible":         i64("CPUs the sandbox can bring online."),
		"cpu_target":           i64("CPUs online last asked for; 0 when none was."),
		"cpu_target_attempts":  i64("Attempts at reaching `cpu_target` since it was set."),
		"cpu_write_pending_ms": i64("How long a CPU online or offline change has been running, in ms; 0 when none is. A value that keeps growing means the change is stuck."),
		"cpu_used_pct":         schema.Float64Attribute{Computed: true, MarkdownDescription: "CPU use in percent."},
		"mem_total":            i64("Memory total, bytes."),
		"mem_used":             i64("Memory used, bytes."),
		"mem_cache":            i64("Memory used by the page cache, bytes."),
		"disk_used":            i64("Disk used, bytes."),
		"disk_total":           i64("Disk total, bytes."),
		"oom_kills": schema.ListNestedAttribute{Computed: true,
			MarkdownDescription: "The latest (at most 32) processes the sandbox's kernel killed for running out of memory since it " +
				"booted, oldest first; empty when there were none, null when E2B does not know.",
			NestedObject: schema.NestedAttributeObject{Attributes: oomKillAttributes()}},
	}
}

var currentMetricsAttrTypes = convert.NestedAttrTypes(currentMetricsAttributes())

func currentMetricsAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "What the daemon inside the sandbox measures at this read: more than `metrics` has (CPU hotplug, " +
			"out-of-memory kills). Null when the sandbox is not running (paused).",
		Attributes: currentMetricsAttributes(),
	}
}

// readCurrentMetrics reads envd's metrics of a sandbox; null when it is not running.
func readCurrentMetrics(ctx context.Context, client *e2b.Client, id string, diags *diag.Diagnostics) types.Object {
	none := types.ObjectNull(currentMetricsAttrTypes)
	envd, err := client.SandboxEnvd(ctx, id, "")
	var m *e2b.EnvdMetrics
	if err == nil {
		m, err = envd.Metrics(ctx)
	}
	switch {
	case errors.Is(err, e2b.ErrSandboxPaused) || e2b.IsSandboxNotRunning(err):
		return none
	case err != nil:
		base.AddSandboxReadError(diags, path.Root("sandbox_id"), id, "Could not read the current metrics of sandbox "+id, err)
		return none
	}
	kills := types.ListNull(types.ObjectType{AttrTypes: oomKillAttrTypes})
	if m.OOMKills != nil {
		kills = base.ObjectList(oomKillAttrTypes, m.OOMKills, func(k e2b.OOMKill) map[string]attr.Value {
			return map[string]attr.Value{"seq": types.Int64Value(k.Seq), "process": types.StringValue(k.Process)}
		})
	}
	return types.ObjectValueMust(currentMetricsAttrTypes, map[string]attr.Value{
		"timestamp":            convert.TimeValue(m.At),
		"cpu_count":            types.Int64Value(int64(m.CPUCount)),
		"cpu_possible":         types.Int64Value(int64(m.CPUPossible)),
		"cpu_target":           types.Int64Value(int64(m.CPUTarget)),
		"cpu_target_attempts":  types.Int64Value(int64(m.CPUTargetAttempts)),
		"cpu_write_pending_ms": types.Int64Value(m.CPUWritePendingMs),
		"cpu_used_pct":         types.Float64Value(m.CPUUsedPct),
		"mem_total":            types.Int64Value(m.MemTotal),
		"mem_used":             types.Int64Value(m.MemUsed),
		"mem_cache":            types.Int64Value(m.MemCache),
		"disk_used":            types.Int64Value(m.DiskUsed),
		"disk_total":           types.Int64Value(m.DiskTotal),
		"oom_kills":            kills,
	})
}
