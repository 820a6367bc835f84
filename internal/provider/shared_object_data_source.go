package provider

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// objectDataSource reads one object of a kind that a list data source also
// lists, by ID or by name, with the list's attributes and conversion.
type objectDataSource struct {
	typeSuffix  string // "volume"
	kind        string // for messages
	description string
	idAttr      string // the attribute that holds the ID
	nameDesc    string
	attributes  func() map[string]schema.Attribute
	// lookup finds the object; nil attributes (and no error) when there is none.
	lookup func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error)
	dataSourceConfig
}

var (
	_ datasource.DataSourceWithConfigure        = &objectDataSource{}
	_ datasource.DataSourceWithConfigValidators = &objectDataSource{}
)

func (d *objectDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.typeSuffix
}

func (d *objectDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := maps.Clone(d.attributes())
	lookup := []validator.String{stringvalidator.LengthAtLeast(1)}
	attrs[d.idAttr] = schema.StringAttribute{Optional: true, Computed: true, Validators: lookup,
		MarkdownDescription: fmt.Sprintf("ID of the %s. Exactly one of `%s` and `name` is set.", d.kind, d.idAttr)}
	attrs["name"] = schema.StringAttribute{Optional: true, Computed: true, Validators: lookup, MarkdownDescription: d.nameDesc}
	resp.Schema = schema.Schema{MarkdownDescription: d.description, Attributes: attrs}
}

func (d *objectDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot(d.idAttr), path.MatchRoot("name"))}
}

func (d *objectDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var id, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(d.idAttr), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := fmt.Sprintf("%s %q", d.idAttr, id.ValueString())
	if !name.IsNull() {
		what = fmt.Sprintf("name %q", name.ValueString())
	}
	attrs, err := d.lookup(ctx, client, id.ValueString(), name.ValueString())
	if err != nil {
		addClientError(&resp.Diagnostics, fmt.Sprintf("Could not read the %s with %s", d.kind, what), err)
		return
	}
	if attrs == nil {
		at := path.Root(d.idAttr)
		if !name.IsNull() {
			at = path.Root("name")
		}
		resp.Diagnostics.AddAttributeError(at, "No such "+d.kind,
			fmt.Sprintf("The team has no %s with %s. The data source e2b_%ss lists them.", d.kind, what, d.kind))
		return
	}
	for k, v := range attrs {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(k), v)...)
	}
}
