package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &sandboxesDataSource{}
)

// NewSandboxesDataSource returns the e2b_sandboxes data source.
func NewSandboxesDataSource() datasource.DataSource {
	return &sandboxesDataSource{base.DataSourceConfig{TypeName: "_sandboxes"}}
}

// sandboxesDataSource lists running and paused sandboxes.
type sandboxesDataSource struct {
	base.DataSourceConfig
}

type sandboxesDataSourceModel struct {
	sandboxFilterModel
	IDs       types.List `tfsdk:"ids"`
	Sandboxes types.List `tfsdk:"sandboxes"`
}

var listedSandboxAttrTypes = convert.NestedAttrTypes(listedSandboxAttributes())

func (d *sandboxesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Running and paused sandboxes of the team, filtered, across all pages (newest first).",
		Attributes: map[string]schema.Attribute{
			"states": schema.ListAttribute{MarkdownDescription: sandboxFilterDocs.states, Optional: true,
				ElementType: types.StringType, Validators: sandboxStatesValidators()},
			"metadata": schema.MapAttribute{MarkdownDescription: sandboxFilterDocs.metadata, Optional: true,
				ElementType: types.StringType},
			"template": schema.StringAttribute{MarkdownDescription: sandboxFilterDocs.template, Optional: true,
				Validators: validators.TemplateFilter()},
			"started_after": schema.StringAttribute{MarkdownDescription: sandboxFilterDocs.startedAfter, Optional: true,
				CustomType: timetypes.RFC3339Type{}},
			"ids": schema.ListAttribute{
				MarkdownDescription: "IDs of the sandboxes found, in the order of `sandboxes`.",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"sandboxes": base.ComputedObjectList("The sandboxes found.", listedSandboxAttributes()),
		},
	}
}

func (d *sandboxesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model sandboxesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, diags := model.params(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	sandboxes, ok := base.Listed(d.Data, &resp.Diagnostics, "Could not list sandboxes",
		func(c *e2b.Client) ([]e2b.ListedSandbox, error) { return c.ListSandboxes(ctx, p) })
	if !ok {
		return
	}
	ids := make([]string, 0, len(sandboxes))
	for _, s := range sandboxes {
		ids = append(ids, s.SandboxID)
	}
	model.IDs = convert.StringListValue(ids)
	model.Sandboxes = base.ObjectList(listedSandboxAttrTypes, sandboxes, listedSandboxAttrs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// listedSandboxAttributes are the attributes of one sandbox of the list; the
// e2b_sandbox data source has them too, with an id of its own.
func listedSandboxAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "Sandbox ID."},
		"template_id":  schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
		"alias":        schema.StringAttribute{Computed: true, MarkdownDescription: "Template alias, if any."},
		"state":        schema.StringAttribute{Computed: true, MarkdownDescription: "`running` or `paused`."},
		"envd_version": schema.StringAttribute{Computed: true, MarkdownDescription: "envd version."},
		"started_at":   base.ComputedTimeAttr("Start or last resume (RFC 3339)."),
		"end_at":       base.ComputedTimeAttr("When it times out, or when it was paused (RFC 3339)."),
		"cpu_count":    schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs."},
		"memory_mb":    schema.Int32Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
		"disk_size_mb": schema.Int32Attribute{Computed: true, MarkdownDescription: "Disk size in MiB."},
		"metadata":     schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata."},
	}
}

// listedSandboxAttrs is one listed sandbox as the attributes of listedSandboxAttrTypes.
func listedSandboxAttrs(s e2b.ListedSandbox) map[string]attr.Value {
	return map[string]attr.Value{
		"id":           types.StringValue(s.SandboxID),
		"template_id":  types.StringValue(s.TemplateID),
		"alias":        convert.OptionalString(s.Alias),
		"state":        types.StringValue(s.State),
		"envd_version": types.StringValue(s.EnvdVersion),
		"started_at":   convert.TimeValue(s.StartedAt),
		"end_at":       convert.TimeValue(s.EndAt),
		"cpu_count":    types.Int32Value(s.CPUCount),
		"memory_mb":    types.Int32Value(s.MemoryMB),
		"disk_size_mb": types.Int32Value(s.DiskSizeMB),
		"metadata":     convert.StringMapValue(s.Metadata),
	}
}
