package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
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

var listedSandboxAttrTypes = convert.NestedAttrTypes(reportedSandboxAttributes())

func (d *sandboxesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Running and paused sandboxes of the team, filtered, across all pages (newest first).",
		Attributes: base.WithAttributes(sandboxFilterAttributes(), map[string]schema.Attribute{
			"ids": schema.ListAttribute{
				MarkdownDescription: "IDs of the sandboxes found, in the order of `sandboxes`.",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"sandboxes": base.ComputedDataSourceList("The sandboxes found.", reportedSandboxAttributes()),
		}),
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

// listedSandboxAttrs is one listed sandbox as the attributes of listedSandboxAttrTypes.
func listedSandboxAttrs(s e2b.ListedSandbox) map[string]attr.Value {
	values := convert.AttrValues(reportedSandbox(s))
	values["metadata"] = convert.StringMapValue(s.Metadata)
	return values
}
