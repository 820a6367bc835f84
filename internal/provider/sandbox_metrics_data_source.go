package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure      = &sandboxMetricsDataSource{}
	_ datasource.DataSourceWithValidateConfig = &sandboxMetricsDataSource{}
)

// NewSandboxMetricsDataSource returns the e2b_sandbox_metrics data source.
func NewSandboxMetricsDataSource() datasource.DataSource {
	return &sandboxMetricsDataSource{base.DataSourceConfig{TypeName: "_sandbox_metrics"}}
}

// sandboxMetricsDataSource reads the resource usage series of one sandbox.
type sandboxMetricsDataSource struct {
	base.DataSourceConfig
}

type sandboxMetricsDataSourceModel struct {
	SandboxID types.String      `tfsdk:"sandbox_id"`
	Start     timetypes.RFC3339 `tfsdk:"start"`
	End       timetypes.RFC3339 `tfsdk:"end"`
	Metrics   types.List        `tfsdk:"metrics"`
	Current   types.Object      `tfsdk:"current"`
}

var sandboxMetricAttrTypes = convert.NestedAttrTypes(sandboxMetricAttributes())

// sandboxMetricAttributes are the attributes of one sample of metrics.
func sandboxMetricAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"timestamp":    base.ComputedDataSourceTime("Sample time (RFC 3339)."),
		"cpu_count":    schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs."},
		"cpu_used_pct": schema.Float64Attribute{Computed: true, MarkdownDescription: "CPU use in percent."},
		"mem_used":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory used, bytes."},
		"mem_total":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory total, bytes."},
		"mem_cache":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory used by caches, bytes."},
		"disk_used":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk used, bytes."},
		"disk_total":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk total, bytes."},
	}
}

func (d *sandboxMetricsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "CPU, memory and disk usage samples of one sandbox, oldest first.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{Required: true, MarkdownDescription: "Sandbox ID.", Validators: validators.SandboxID()},
			"start": schema.StringAttribute{
				Optional: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "Earliest sample (RFC 3339). Default: the sandbox's start.",
			},
			"end": schema.StringAttribute{
				Optional: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "Latest sample (RFC 3339). Default: now.",
			},
			"metrics": base.ComputedDataSourceList("The samples.", sandboxMetricAttributes()),
			"current": currentMetricsAttribute(),
		},
	}
}

func (d *sandboxMetricsDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var model sandboxMetricsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if start, end := convert.OptionalTime(model.Start), convert.OptionalTime(model.End); start != nil && end != nil && start.After(*end) {
		resp.Diagnostics.AddAttributeError(path.Root("start"), "start is after end",
			"Set start to a time before end ("+model.End.ValueString()+").")
	}
}

func (d *sandboxMetricsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model sandboxMetricsDataSourceModel
	client := d.ConfigAndClient(ctx, req, resp, &model)
	if client == nil {
		return
	}
	start, end := convert.OptionalTime(model.Start), convert.OptionalTime(model.End)
	id := model.SandboxID.ValueString()
	series, err := client.GetSandboxMetrics(ctx, id, start, end)
	if err != nil {
		base.AddSandboxReadError(&resp.Diagnostics, path.Root("sandbox_id"), id, "Could not read metrics of sandbox "+id, err)
		return
	}
	model.Metrics = base.ObjectList(sandboxMetricAttrTypes, series, func(m e2b.SandboxMetric) map[string]attr.Value {
		ts := m.Timestamp
		if m.TimestampUnix != 0 {
			ts = time.Unix(m.TimestampUnix, 0)
		}
		return map[string]attr.Value{
			"timestamp":    convert.TimeValue(ts),
			"cpu_count":    types.Int32Value(m.CPUCount),
			"cpu_used_pct": types.Float64Value(m.CPUUsedPct),
			"mem_used":     types.Int64Value(m.MemUsed),
			"mem_total":    types.Int64Value(m.MemTotal),
			"mem_cache":    types.Int64Value(m.MemCache),
			"disk_used":    types.Int64Value(m.DiskUsed),
			"disk_total":   types.Int64Value(m.DiskTotal),
		}
	})
	model.Current = readCurrentMetrics(ctx, client, id, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
