package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ datasource.DataSource              = &sandboxesDataSource{}
	_ datasource.DataSourceWithConfigure = &sandboxesDataSource{}
)

// NewSandboxesDataSource returns the e2b_sandboxes data source.
func NewSandboxesDataSource() datasource.DataSource { return &sandboxesDataSource{} }

// sandboxesDataSource lists running and paused sandboxes.
type sandboxesDataSource struct {
	data *ProviderData
}

type sandboxesDataSourceModel struct {
	State        types.Set    `tfsdk:"state"`
	Metadata     types.Map    `tfsdk:"metadata"`
	Template     types.String `tfsdk:"template"`
	StartedAfter types.String `tfsdk:"started_after"`
	IDs          types.List   `tfsdk:"ids"`
	Sandboxes    types.List   `tfsdk:"sandboxes"`
}

var listedSandboxAttrTypes = map[string]attr.Type{
	"id":           types.StringType,
	"template_id":  types.StringType,
	"alias":        types.StringType,
	"state":        types.StringType,
	"envd_version": types.StringType,
	"started_at":   types.StringType,
	"end_at":       types.StringType,
	"cpu_count":    types.Int64Type,
	"memory_mb":    types.Int64Type,
	"disk_size_mb": types.Int64Type,
	"metadata":     types.MapType{ElemType: types.StringType},
}

func (d *sandboxesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sandboxes"
}

func (d *sandboxesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Running and paused sandboxes of the team, filtered, across all pages (newest first).",
		Attributes: map[string]schema.Attribute{
			"state": schema.SetAttribute{
				MarkdownDescription: "Only sandboxes in these states: `running`, `paused`. Default both.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf("running", "paused")),
				},
			},
			"metadata": schema.MapAttribute{
				MarkdownDescription: "Only sandboxes whose metadata has all these key/value pairs.",
				Optional:            true,
				ElementType:         types.StringType,
			},
			"template": schema.StringAttribute{
				MarkdownDescription: "Only sandboxes of this template (ID or name, without `:tag`).",
				Optional:            true,
				Validators:          []validator.String{templateRefValidator(), stringvalidator.RegexMatches(noTagPattern, "must not contain a :tag")},
			},
			"started_after": schema.StringAttribute{
				MarkdownDescription: "Only sandboxes started at or after this time (RFC 3339, e.g. `2026-01-02T15:04:05Z`).",
				Optional:            true,
				Validators:          []validator.String{rfc3339Validator()},
			},
			"ids": schema.ListAttribute{
				MarkdownDescription: "IDs of the sandboxes found, in the order of `sandboxes`.",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"sandboxes": schema.ListNestedAttribute{
				MarkdownDescription: "The sandboxes found.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "Sandbox ID."},
					"template_id":  schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
					"alias":        schema.StringAttribute{Computed: true, MarkdownDescription: "Template alias, if any."},
					"state":        schema.StringAttribute{Computed: true, MarkdownDescription: "`running` or `paused`."},
					"envd_version": schema.StringAttribute{Computed: true, MarkdownDescription: "envd version."},
					"started_at":   schema.StringAttribute{Computed: true, MarkdownDescription: "Start or last resume (RFC 3339)."},
					"end_at":       schema.StringAttribute{Computed: true, MarkdownDescription: "When it times out, or when it was paused (RFC 3339)."},
					"cpu_count":    schema.Int64Attribute{Computed: true, MarkdownDescription: "vCPUs."},
					"memory_mb":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
					"disk_size_mb": schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk size in MiB."},
					"metadata":     schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata."},
				}},
			},
		},
	}
}

func (d *sandboxesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *sandboxesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model sandboxesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var p e2b.ListSandboxesParams
	p.States, diags = stringSetFrom(ctx, model.State)
	resp.Diagnostics.Append(diags...)
	meta, diags := stringMapFrom(ctx, model.Metadata)
	resp.Diagnostics.Append(diags...)
	if len(meta) > 0 {
		p.Metadata = meta
	}
	p.Template = model.Template.ValueString()
	if s := model.StartedAfter.ValueString(); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("started_after"), "Invalid time", err.Error())
			return
		}
		p.StartedAfter = &t
	}
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := client.ListSandboxes(ctx, p)
	if err != nil {
		addClientError(&resp.Diagnostics, "Could not list sandboxes", err)
		return
	}
	ids := make([]string, 0, len(list))
	elems := make([]attr.Value, 0, len(list))
	for _, s := range list {
		ids = append(ids, s.SandboxID)
		elems = append(elems, listedSandboxObject(s))
	}
	model.IDs = stringListValue(ids)
	model.Sandboxes = types.ListValueMust(types.ObjectType{AttrTypes: listedSandboxAttrTypes}, elems)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

func listedSandboxObject(s e2b.ListedSandbox) types.Object {
	return types.ObjectValueMust(listedSandboxAttrTypes, map[string]attr.Value{
		"id":           types.StringValue(s.SandboxID),
		"template_id":  types.StringValue(s.TemplateID),
		"alias":        optionalString(s.Alias),
		"state":        types.StringValue(s.State),
		"envd_version": types.StringValue(s.EnvdVersion),
		"started_at":   timeString(s.StartedAt),
		"end_at":       timeString(s.EndAt),
		"cpu_count":    types.Int64Value(int64(s.CPUCount)),
		"memory_mb":    types.Int64Value(int64(s.MemoryMB)),
		"disk_size_mb": types.Int64Value(int64(s.DiskSizeMB)),
		"metadata":     stringMapValue(s.Metadata),
	})
}
