package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
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
	_ datasource.DataSourceWithConfigure        = &templateDataSource{}
	_ datasource.DataSourceWithConfigValidators = &templateDataSource{}
)

// NewTemplateDataSource returns the e2b_template data source.
func NewTemplateDataSource() datasource.DataSource {
	return &templateDataSource{base.DataSourceConfig{TypeName: "_template"}}
}

// templateDataSource reads one template with its builds.
type templateDataSource struct {
	base.DataSourceConfig
}

type templateDataSourceModel struct {
	TemplateID    types.String      `tfsdk:"template_id"`
	Name          types.String      `tfsdk:"name"`
	Public        types.Bool        `tfsdk:"public"`
	Aliases       types.List        `tfsdk:"aliases"`
	Names         types.List        `tfsdk:"names"`
	CreatedAt     timetypes.RFC3339 `tfsdk:"created_at"`
	UpdatedAt     timetypes.RFC3339 `tfsdk:"updated_at"`
	LastSpawnedAt timetypes.RFC3339 `tfsdk:"last_spawned_at"`
	SpawnCount    types.Int64       `tfsdk:"spawn_count"`
	Builds        types.List        `tfsdk:"builds"`
	Tags          types.List        `tfsdk:"tags"`
}

var templateBuildAttrTypes = convert.NestedAttrTypes(templateBuildAttributes())

// templateBuildAttributes are the attributes of one build of builds.
func templateBuildAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"build_id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Build ID."},
		"status":       schema.StringAttribute{Computed: true, MarkdownDescription: "`building`, `waiting`, `ready` or `error`."},
		"envd_version": schema.StringAttribute{Computed: true, MarkdownDescription: "envd version of the build, if known."},
		"created_at":   base.ComputedDataSourceTime("Creation time (RFC 3339)."),
		"updated_at":   base.ComputedDataSourceTime("Last update (RFC 3339)."),
		"finished_at":  base.ComputedDataSourceTime("When the build finished (RFC 3339), if it did."),
		"cpu_count":    schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs."},
		"memory_mb":    schema.Int32Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
		"disk_size_mb": schema.Int32Attribute{Computed: true, MarkdownDescription: "Disk size in MiB, if known."},
	}
}

func (d *templateDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"template_id": schema.StringAttribute{
			MarkdownDescription: "Template ID. Exactly one of `template_id` and `name` must be set; the other is filled in.",
			Optional:            true,
			Computed:            true,
			Validators:          validators.TemplateRef(),
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Template name (`name`, `namespace/name` or `namespace/name:tag`). When looked up by ID, the first name, if any.",
			Optional:            true,
			Computed:            true,
			Validators:          validators.TemplateRef(),
		},
		"names":  schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "All names."},
		"builds": base.ComputedDataSourceList("All builds (every page).", templateBuildAttributes()),
		"tags":   templateTagsSchema(),
	}
	// Described as one template of e2b_templates is.
	listed := listedTemplateAttributes()
	for _, name := range []string{"public", "aliases", "created_at", "updated_at", "last_spawned_at", "spawn_count"} {
		attrs[name] = listed[name]
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One template, by ID or by name, with all its builds and tags.",
		Attributes:          attrs,
	}
}

func (d *templateDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("template_id"), path.MatchRoot("name")),
	}
}

func (d *templateDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model templateDataSourceModel
	client := d.ConfigAndClient(ctx, req, resp, &model)
	if client == nil {
		return
	}
	ref, attrPath := model.TemplateID.ValueString(), path.Root("template_id")
	if ref == "" {
		ref, attrPath = model.Name.ValueString(), path.Root("name")
	}
	t, err := client.GetTemplate(ctx, ref)
	if err != nil {
		if e2b.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(attrPath, "Template not found",
				"No template "+convert.Quote(ref)+" is visible to this API key. Check the ID or name; e2b_templates lists your team's templates.")
			return
		}
		base.AddClientError(&resp.Diagnostics, "Could not read template "+ref, err)
		return
	}
	model.TemplateID = types.StringValue(t.TemplateID)
	if model.Name.IsNull() || model.Name.IsUnknown() {
		model.Name = types.StringNull()
		if len(t.Names) > 0 {
			model.Name = types.StringValue(t.Names[0])
		}
	}
	model.Public = types.BoolValue(t.Public)
	model.Aliases = convert.StringListValue(t.Aliases)
	model.Names = convert.StringListValue(t.Names)
	model.CreatedAt = convert.TimeValue(t.CreatedAt)
	model.UpdatedAt = convert.TimeValue(t.UpdatedAt)
	model.LastSpawnedAt = convert.TimePtrValue(t.LastSpawnedAt)
	model.SpawnCount = types.Int64Value(t.SpawnCount)
	builds := make([]attr.Value, 0, len(t.Builds))
	for _, b := range t.Builds {
		builds = append(builds, templateBuildObject(b))
	}
	model.Builds = types.ListValueMust(types.ObjectType{AttrTypes: templateBuildAttrTypes}, builds)
	tags, err := visibleTags(ctx, client, t.TemplateID)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not list the tags of template "+ref, err)
		return
	}
	model.Tags = templateTagsValue(tags)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

func templateBuildObject(b e2b.TemplateBuild) types.Object {
	disk := types.Int32PointerValue(b.DiskSizeMB)
	return types.ObjectValueMust(templateBuildAttrTypes, map[string]attr.Value{
		"build_id":     types.StringValue(b.BuildID),
		"status":       types.StringValue(b.Status),
		"envd_version": convert.OptionalString(b.EnvdVersion),
		"created_at":   convert.TimeValue(b.CreatedAt),
		"updated_at":   convert.TimeValue(b.UpdatedAt),
		"finished_at":  convert.TimePtrValue(b.FinishedAt),
		"cpu_count":    types.Int32Value(b.CPUCount),
		"memory_mb":    types.Int32Value(b.MemoryMB),
		"disk_size_mb": disk,
	})
}
