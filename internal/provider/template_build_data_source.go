package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int32validator"
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
	_ datasource.DataSourceWithConfigure = &templateBuildDataSource{}
)

const defaultBuildLogLimit = 100

// NewTemplateBuildDataSource returns the e2b_template_build data source.
func NewTemplateBuildDataSource() datasource.DataSource {
	return &templateBuildDataSource{base.DataSourceConfig{TypeName: "_template_build"}}
}

// templateBuildDataSource reads one build: its status, why it failed, and its log.
type templateBuildDataSource struct {
	base.DataSourceConfig
}

type templateBuildModel struct {
	Template   types.String `tfsdk:"template"`
	BuildID    types.String `tfsdk:"build_id"`
	LogLimit   types.Int32  `tfsdk:"log_limit"`
	LogLevel   types.String `tfsdk:"log_level"`
	TemplateID types.String `tfsdk:"template_id"`
	Status     types.String `tfsdk:"status"`
	Reason     types.String `tfsdk:"reason"`
	ReasonStep types.String `tfsdk:"reason_step"`
	LogEntries types.List   `tfsdk:"log_entries"`
}

var buildLogAttrTypes = convert.NestedAttrTypes(buildLogAttributes())

// buildLogAttributes are the attributes of one entry of log_entries.
func buildLogAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"timestamp": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "When it was logged (RFC 3339)."},
		"level":     schema.StringAttribute{Computed: true, MarkdownDescription: "`debug`, `info`, `warn` or `error`."},
		"message":   schema.StringAttribute{Computed: true, MarkdownDescription: "The line."},
		"step":      schema.StringAttribute{Computed: true, MarkdownDescription: "The step it belongs to, when known."},
	}
}

func (d *templateBuildDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One build of a template: its status, why it failed, and the last lines of its log. " +
			"A build log holds whatever the build's steps print, and E2B's own lines repeat each step with its arguments, " +
			"`env` values included: `log_entries` and `reason` are sensitive, so that plan, apply and `state show` never print them " +
			"(`nonsensitive()` shows them where that is safe). The state still holds them, as it holds every sensitive value.",
		Attributes: map[string]schema.Attribute{
			"template": schema.StringAttribute{
				MarkdownDescription: "Template ID or name.",
				Required:            true,
				Validators:          validators.TemplateRef(),
			},
			"build_id": schema.StringAttribute{
				MarkdownDescription: "Build ID, such as `e2b_template.app.build_id`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"log_limit": schema.Int32Attribute{
				MarkdownDescription: "How many of the last log entries to return (0 for none). Default `100`.",
				Optional:            true,
				Validators:          []validator.Int32{int32validator.Between(0, 10000)},
			},
			"log_level": schema.StringAttribute{
				MarkdownDescription: "Lowest level of the log entries returned: `debug`, `info`, `warn` or `error`. Default: all.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf("debug", "info", "warn", "error")},
			},
			"template_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
			"status":      schema.StringAttribute{Computed: true, MarkdownDescription: "`building`, `waiting`, `ready` or `error`."},
			"reason":      schema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "Why the build failed, when it did. Sensitive: it may quote the failing step."},
			"reason_step": schema.StringAttribute{Computed: true, MarkdownDescription: "The step that failed: a step number (1 is the first step), `base` or `finalize`."},
			"log_entries": schema.ListNestedAttribute{
				MarkdownDescription: "The last `log_limit` log entries at `log_level` or above, oldest first. Sensitive: steps print what they like, secrets too.",
				Computed:            true,
				Sensitive:           true,
				NestedObject:        schema.NestedAttributeObject{Attributes: buildLogAttributes()},
			},
		},
	}
}

func (d *templateBuildDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m templateBuildModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	t, err := client.GetTemplate(ctx, m.Template.ValueString())
	if err != nil {
		if e2b.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("template"), "Template not found",
				"No template "+convert.Quote(m.Template.ValueString())+" is visible to this API key.")
			return
		}
		base.AddClientError(&resp.Diagnostics, "Could not read template "+m.Template.ValueString(), err)
		return
	}
	limit := int(defaultBuildLogLimit)
	if !m.LogLimit.IsNull() {
		limit = int(m.LogLimit.ValueInt32())
	}
	st, entries, err := buildLogTail(ctx, client, t.TemplateID, m.BuildID.ValueString(), m.LogLevel.ValueString(), limit)
	if err != nil {
		if e2b.IsNotFound(err) || e2b.IsBadRequest(err) {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("build_id"), "Build not found", err)
			return
		}
		base.AddClientError(&resp.Diagnostics, "Could not read build "+m.BuildID.ValueString(), err)
		return
	}
	m.TemplateID = types.StringValue(t.TemplateID)
	m.Status = types.StringValue(st.Status)
	m.Reason, m.ReasonStep = types.StringNull(), types.StringNull()
	if st.Reason != nil {
		m.Reason, m.ReasonStep = types.StringValue(st.Reason.Message), convert.OptionalString(st.Reason.Step)
	}
	m.LogEntries = base.ObjectList(buildLogAttrTypes, entries, func(l e2b.BuildLogEntry) map[string]attr.Value {
		return map[string]attr.Value{
			"timestamp": timetypes.NewRFC3339TimeValue(l.Timestamp),
			"level":     types.StringValue(l.Level),
			"message":   types.StringValue(l.Message),
			"step":      convert.OptionalString(l.Step),
		}
	})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// buildLogTail pages through a build's log (at level or above) and keeps the
// last limit entries; it returns the last status read.
func buildLogTail(ctx context.Context, client *e2b.Client, templateID, buildID, level string, limit int) (*e2b.TemplateBuildStatus, []e2b.BuildLogEntry, error) {
	var kept []e2b.BuildLogEntry
	var offset int32
	for {
		st, err := client.GetTemplateBuildStatus(ctx, templateID, buildID, e2b.StatusQuery{LogsOffset: offset, Level: level})
		if err != nil {
			return nil, nil, err
		}
		offset += int32(len(st.LogEntries))
		kept = append(kept, st.LogEntries...)
		if len(kept) > limit {
			kept = append([]e2b.BuildLogEntry(nil), kept[len(kept)-limit:]...)
		}
		if len(st.LogEntries) < 100 {
			return st, kept, nil
		}
	}
}
