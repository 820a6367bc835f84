package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int32validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &sandboxLogsDataSource{}
)

// NewSandboxLogsDataSource returns the e2b_sandbox_logs data source.
func NewSandboxLogsDataSource() datasource.DataSource {
	return &sandboxLogsDataSource{base.DataSourceConfig{TypeName: "_sandbox_logs"}}
}

// sandboxLogsDataSource reads one page of a sandbox's logs.
type sandboxLogsDataSource struct {
	base.DataSourceConfig
}

type sandboxLogsDataSourceModel struct {
	SandboxID  types.String `tfsdk:"sandbox_id"`
	Cursor     types.Int64  `tfsdk:"cursor"`
	Direction  types.String `tfsdk:"direction"`
	Level      types.String `tfsdk:"level"`
	Search     types.String `tfsdk:"search"`
	Limit      types.Int32  `tfsdk:"limit"`
	Logs       types.List   `tfsdk:"logs"`
	NextCursor types.Int64  `tfsdk:"next_cursor"`
}

var sandboxLogAttrTypes = convert.NestedAttrTypes(sandboxLogAttributes())

// sandboxLogAttributes are the attributes of one entry of logs.
func sandboxLogAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"timestamp": base.ComputedDataSourceTime("Time (RFC 3339)."),
		"level":     schema.StringAttribute{Computed: true, MarkdownDescription: "Level."},
		"message":   schema.StringAttribute{Computed: true, MarkdownDescription: "Message."},
		"fields":    schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Structured fields."},
	}
}

func (d *sandboxLogsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One page of a sandbox's logs (E2B keeps 7 days). Page on with `next_cursor`.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{Required: true, MarkdownDescription: "Sandbox ID.", Validators: validators.SandboxID()},
			"cursor": schema.Int64Attribute{
				Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "Start from this time, in Unix milliseconds. Default: now (backward) or 7 days ago (forward).",
			},
			"direction": schema.StringAttribute{
				Optional: true, Validators: []validator.String{stringvalidator.OneOf(e2b.LogDirections()...)},
				MarkdownDescription: "`forward` (oldest first from `cursor`) or `backward` (newest first). E2B's default is `backward`.",
			},
			"level": schema.StringAttribute{
				Optional: true, Validators: []validator.String{stringvalidator.OneOf(e2b.LogLevels()...)},
				MarkdownDescription: "Minimum level: `debug`, `info`, `warn` or `error`.",
			},
			"search": schema.StringAttribute{
				Optional: true, Validators: []validator.String{stringvalidator.LengthBetween(1, 256)},
				MarkdownDescription: "Only entries whose message contains this text (case-sensitive).",
			},
			"limit": schema.Int32Attribute{
				Optional: true, Validators: []validator.Int32{int32validator.Between(1, 1000)},
				MarkdownDescription: "Maximum number of entries (1..1000). E2B's default is 1000.",
			},
			"next_cursor": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Timestamp (Unix ms) of the last entry returned, to pass as `cursor` for the next page; null when no entries were returned.",
			},
			"logs": base.ComputedDataSourceList("The entries.", sandboxLogAttributes()),
		},
	}
}

func (d *sandboxLogsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model sandboxLogsDataSourceModel
	client := d.ConfigAndClient(ctx, req, resp, &model)
	if client == nil {
		return
	}
	p := e2b.LogsParams{
		Limit:     model.Limit.ValueInt32(),
		Direction: model.Direction.ValueString(),
		Level:     model.Level.ValueString(),
		Search:    model.Search.ValueString(),
	}
	if !model.Cursor.IsNull() && !model.Cursor.IsUnknown() {
		c := model.Cursor.ValueInt64()
		p.Cursor = &c
	}
	id := model.SandboxID.ValueString()
	entries, err := client.GetSandboxLogs(ctx, id, p)
	if err != nil {
		base.AddSandboxReadError(&resp.Diagnostics, path.Root("sandbox_id"), id, "Could not read logs of sandbox "+id, err)
		return
	}
	model.Logs = base.ObjectList(sandboxLogAttrTypes, entries, func(e e2b.SandboxLogEntry) map[string]attr.Value {
		return map[string]attr.Value{
			"timestamp": convert.TimeValue(e.Timestamp),
			"level":     types.StringValue(e.Level),
			"message":   types.StringValue(e.Message),
			"fields":    convert.StringMapValue(e.Fields),
		}
	})
	model.NextCursor = types.Int64Null()
	if n := len(entries); n > 0 {
		model.NextCursor = types.Int64Value(entries[n-1].Timestamp.UnixMilli())
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
