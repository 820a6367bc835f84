package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

var (
	_ datasource.DataSourceWithConfigure      = &teamMetricsDataSource{}
	_ datasource.DataSourceWithValidateConfig = &teamMetricsDataSource{}
)

// NewTeamMetricsDataSource returns the e2b_team_metrics data source.
func NewTeamMetricsDataSource() datasource.DataSource {
	return &teamMetricsDataSource{base.DataSourceConfig{TypeName: "_team_metrics"}}
}

// teamMetricsDataSource reads a team's concurrency and start-rate samples
// and their maxima over a range.
type teamMetricsDataSource struct {
	base.DataSourceConfig
}

type teamMetricsModel struct {
	TeamID                 types.String      `tfsdk:"team_id"`
	Start                  timetypes.RFC3339 `tfsdk:"start"`
	End                    timetypes.RFC3339 `tfsdk:"end"`
	Metrics                types.List        `tfsdk:"metrics"`
	MaxConcurrentSandboxes types.Object      `tfsdk:"max_concurrent_sandboxes"`
	MaxSandboxStartRate    types.Object      `tfsdk:"max_sandbox_start_rate"`
}

var (
	teamMetricAttrTypes = map[string]attr.Type{
		"timestamp": timetypes.RFC3339Type{}, "concurrent_sandboxes": types.Int64Type, "sandbox_start_rate": types.Float64Type,
	}
	teamMaxAttrTypes = map[string]attr.Type{"timestamp": timetypes.RFC3339Type{}, "value": types.Float64Type}
)

func (d *teamMetricsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	maxAttr := func(what string) schema.SingleNestedAttribute {
		return schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Largest " + what + " in the range, and when it was reached.",
			Attributes: map[string]schema.Attribute{
				"timestamp": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "When (RFC 3339)."},
				"value":     schema.Float64Attribute{Computed: true, MarkdownDescription: "The value."},
			},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A team's sandbox figures over a time range: how many sandboxes ran at once and how " +
			"many started per second, sample by sample, and the largest of each.",
		Attributes: map[string]schema.Attribute{
			"team_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "ID of the team the API key belongs to (E2B's dashboard shows it; webhook events carry it as `sandboxTeamId`).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"start": schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Start of the range (RFC 3339). Default: E2B's."},
			"end": schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "End of the range (RFC 3339). Default: now.",
				Validators: []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("start"))}},
			"metrics": schema.ListNestedAttribute{
				MarkdownDescription: "The samples, oldest first.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"timestamp":            schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Time of the sample (RFC 3339)."},
					"concurrent_sandboxes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Sandboxes running at that time."},
					"sandbox_start_rate":   schema.Float64Attribute{Computed: true, MarkdownDescription: "Sandboxes started per second."},
				}},
			},
			"max_concurrent_sandboxes": maxAttr("number of sandboxes running at once"),
			"max_sandbox_start_rate":   maxAttr("start rate (per second)"),
		},
	}
}

// ValidateConfig refuses a range E2B cannot answer, naming the bound.
func (d *teamMetricsDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m teamMetricsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bound := func(name string, v timetypes.RFC3339) time.Time {
		if v.IsNull() || v.IsUnknown() {
			return time.Time{}
		}
		t, diags := v.ValueRFC3339Time()
		if diags.HasError() {
			return time.Time{} // the type reports it
		}
		if err := e2b.CheckTeamMetricsTime(t); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid time range", name+" "+err.Error()+".")
		}
		return t
	}
	start, end := bound("start", m.Start), bound("end", m.End)
	if err := e2b.CheckTeamMetricsOrder(start, end); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("end"), "Invalid time range", err.Error()+".")
	}
}

func (d *teamMetricsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m teamMetricsModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	var start, end time.Time
	var diags diag.Diagnostics
	if !m.Start.IsNull() {
		start, diags = m.Start.ValueRFC3339Time()
		resp.Diagnostics.Append(diags...)
	}
	if !m.End.IsNull() {
		end, diags = m.End.ValueRFC3339Time()
		resp.Diagnostics.Append(diags...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	team := m.TeamID.ValueString()
	samples, err := client.TeamMetrics(ctx, team, start, end)
	if err != nil {
		base.AddClientAttributeError(&resp.Diagnostics, path.Root("team_id"), "Could not read team metrics", err)
		return
	}
	m.Metrics = base.ObjectList(teamMetricAttrTypes, samples, func(s e2b.TeamMetric) map[string]attr.Value {
		return map[string]attr.Value{
			"timestamp": timetypes.NewRFC3339TimeValue(s.Timestamp), "concurrent_sandboxes": types.Int64Value(int64(s.ConcurrentSandboxes)),
			"sandbox_start_rate": types.Float64Value(s.SandboxStartRate),
		}
	})
	for _, x := range []struct {
		metric string
		dst    *types.Object
	}{{e2b.MetricConcurrentSandboxes, &m.MaxConcurrentSandboxes}, {e2b.MetricSandboxStartRate, &m.MaxSandboxStartRate}} {
		mx, err := client.TeamMetricMax(ctx, team, x.metric, start, end)
		if err != nil {
			base.AddClientError(&resp.Diagnostics, "Could not read the team's maximum "+x.metric, err)
			return
		}
		*x.dst = types.ObjectValueMust(teamMaxAttrTypes, map[string]attr.Value{
			"timestamp": timetypes.NewRFC3339TimeValue(mx.Timestamp), "value": types.Float64Value(mx.Value),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
