package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ datasource.DataSource              = &templatesDataSource{}
	_ datasource.DataSourceWithConfigure = &templatesDataSource{}
)

// NewTemplatesDataSource returns the e2b_templates data source.
func NewTemplatesDataSource() datasource.DataSource { return &templatesDataSource{} }

// templatesDataSource lists the team's templates.
type templatesDataSource struct {
	data *ProviderData
}

type templatesDataSourceModel struct {
	Templates types.List `tfsdk:"templates"`
}

var templateAttrTypes = map[string]attr.Type{
	"template_id":     types.StringType,
	"build_id":        types.StringType,
	"build_status":    types.StringType,
	"envd_version":    types.StringType,
	"cpu_count":       types.Int32Type,
	"memory_mb":       types.Int32Type,
	"disk_size_mb":    types.Int32Type,
	"public":          types.BoolType,
	"aliases":         types.ListType{ElemType: types.StringType},
	"names":           types.ListType{ElemType: types.StringType},
	"created_at":      timetypes.RFC3339Type{},
	"updated_at":      timetypes.RFC3339Type{},
	"last_spawned_at": timetypes.RFC3339Type{},
	"spawn_count":     types.Int64Type,
	"build_count":     types.Int32Type,
}

func (d *templatesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_templates"
}

func (d *templatesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "All templates of the team that owns the API key (every page). Public templates such as `base` are usable but not listed.",
		Attributes: map[string]schema.Attribute{
			"templates": schema.ListNestedAttribute{
				MarkdownDescription: "The templates.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"template_id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
					"build_id":        schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the current build."},
					"build_status":    schema.StringAttribute{Computed: true, MarkdownDescription: "Status of the current build: `building`, `waiting`, `ready` or `error`."},
					"envd_version":    schema.StringAttribute{Computed: true, MarkdownDescription: "envd version in the template."},
					"cpu_count":       schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs of sandboxes from this template."},
					"memory_mb":       schema.Int32Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
					"disk_size_mb":    schema.Int32Attribute{Computed: true, MarkdownDescription: "Disk size in MiB."},
					"public":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether other teams can use it."},
					"aliases":         schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Aliases (deprecated by E2B in favour of `names`)."},
					"names":           schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names (`namespace/name`)."},
					"created_at":      computedTimeAttr("Creation time (RFC 3339)."),
					"updated_at":      computedTimeAttr("Last update (RFC 3339)."),
					"last_spawned_at": computedTimeAttr("Last time a sandbox started from it (RFC 3339), if ever."),
					"spawn_count":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of sandboxes started from it."},
					"build_count":     schema.Int32Attribute{Computed: true, MarkdownDescription: "Number of builds."},
				}},
			},
		},
	}
}

func (d *templatesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *templatesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := client.ListTemplates(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Could not list templates", err)
		return
	}
	elems := make([]attr.Value, 0, len(list))
	for _, t := range list {
		elems = append(elems, templateObject(t))
	}
	model := templatesDataSourceModel{Templates: types.ListValueMust(types.ObjectType{AttrTypes: templateAttrTypes}, elems)}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// templateObject converts one listed template.
func templateObject(t e2b.Template) types.Object {
	return types.ObjectValueMust(templateAttrTypes, map[string]attr.Value{
		"template_id":     types.StringValue(t.TemplateID),
		"build_id":        types.StringValue(t.BuildID),
		"build_status":    types.StringValue(t.BuildStatus),
		"envd_version":    types.StringValue(t.EnvdVersion),
		"cpu_count":       types.Int32Value(t.CPUCount),
		"memory_mb":       types.Int32Value(t.MemoryMB),
		"disk_size_mb":    types.Int32Value(t.DiskSizeMB),
		"public":          types.BoolValue(t.Public),
		"aliases":         stringListValue(t.Aliases),
		"names":           stringListValue(t.Names),
		"created_at":      timeValue(t.CreatedAt),
		"updated_at":      timeValue(t.UpdatedAt),
		"last_spawned_at": timePtrValue(t.LastSpawnedAt),
		"spawn_count":     types.Int64Value(t.SpawnCount),
		"build_count":     types.Int32Value(t.BuildCount),
	})
}
