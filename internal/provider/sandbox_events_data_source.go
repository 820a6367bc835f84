package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &sandboxEventsDataSource{}
)

// NewSandboxEventsDataSource returns the e2b_sandbox_events data source.
func NewSandboxEventsDataSource() datasource.DataSource {
	return &sandboxEventsDataSource{base.DataSourceConfig{TypeName: "_sandbox_events"}}
}

// sandboxEventsDataSource reads lifecycle events (E2B's polling API).
type sandboxEventsDataSource struct {
	base.DataSourceConfig
}

type sandboxEventsModel struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
	Types     types.Set    `tfsdk:"types"`
	Ascending types.Bool   `tfsdk:"ascending"`
	Offset    types.Int64  `tfsdk:"offset"`
	Limit     types.Int64  `tfsdk:"limit"`
	Events    types.List   `tfsdk:"events"`
}

var sandboxEventAttrTypes = convert.NestedAttrTypes(sandboxEventAttributes())

// sandboxEventAttributes are the attributes of one event of events.
func sandboxEventAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "Event ID."},
		"type":         schema.StringAttribute{Computed: true, MarkdownDescription: "Event type, such as `sandbox.lifecycle.paused`."},
		"sandbox_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "The sandbox."},
		"template_id":  schema.StringAttribute{Computed: true, MarkdownDescription: "Its template."},
		"execution_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The run of the sandbox (new at create and at each resume)."},
		"timestamp":    schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "When it happened (RFC 3339)."},
		"event_data":   schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{}, MarkdownDescription: "The event's data as JSON (`sandbox_metadata`, and `execution` on paused and killed)."},
	}
}

func (d *sandboxEventsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Sandbox lifecycle events of the team, or of one sandbox (also after it ended), newest first " +
			"unless `ascending`. E2B keeps events for a limited time.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{Optional: true, MarkdownDescription: "Only this sandbox's events.", Validators: validators.SandboxID()},
			"types": schema.SetAttribute{
				Optional: true, ElementType: types.StringType, MarkdownDescription: "Only these event types.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.OneOf(e2b.SandboxEventTypes...))},
			},
			"ascending": schema.BoolAttribute{Optional: true, MarkdownDescription: "Oldest first. Default `false` (newest first)."},
			"offset":    schema.Int64Attribute{Optional: true, MarkdownDescription: "Events to skip. Default 0.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
			"limit": schema.Int64Attribute{Optional: true, MarkdownDescription: "Most events to return, 1 to 1000. Default 100.",
				Validators: []validator.Int64{int64validator.Between(1, 1000)}},
			"events": base.ComputedDataSourceList("The events.", sandboxEventAttributes()),
		},
	}
}

func (d *sandboxEventsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m sandboxEventsModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	kinds, diags := convert.StringSetFrom(ctx, m.Types)
	resp.Diagnostics.Append(diags...)
	limit := int(m.Limit.ValueInt64())
	if m.Limit.IsNull() {
		limit = 100
	}
	list, err := client.ListSandboxEvents(ctx, e2b.ListEventsParams{
		SandboxID: m.SandboxID.ValueString(), Types: kinds, Ascending: m.Ascending.ValueBool(),
		Offset: int(m.Offset.ValueInt64()), Limit: limit,
	})
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not list sandbox events", err)
		return
	}
	m.Events = base.ObjectList(sandboxEventAttrTypes, list, func(e e2b.SandboxEvent) map[string]attr.Value {
		data := string(e.Data)
		if data == "" {
			data = "{}"
		}
		return map[string]attr.Value{
			"id": types.StringValue(e.ID), "type": types.StringValue(e.Type), "sandbox_id": types.StringValue(e.SandboxID),
			"template_id": types.StringValue(e.TemplateID), "execution_id": types.StringValue(e.ExecutionID),
			"timestamp": timetypes.NewRFC3339TimeValue(e.Timestamp), "event_data": jsontypes.NewNormalizedValue(data),
		}
	})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
