package base

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

// ObjectDataSource reads one object of a kind that a list data source also
// lists, by ID or by name, with the list's attributes and conversion.
type ObjectDataSource struct {
	TypeSuffix  string // "volume"
	Kind        string // for messages
	Description string
	IDAttr      string // the attribute that holds the ID
	NameDesc    string
	Attributes  func() map[string]schema.Attribute
	// lookup finds the object; nil attributes (and no error) when there is none.
	Lookup func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error)
	DataSourceConfig
}

var (
	_ datasource.DataSourceWithConfigure        = &ObjectDataSource{}
	_ datasource.DataSourceWithConfigValidators = &ObjectDataSource{}
)

func (d *ObjectDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.TypeSuffix
}

func (d *ObjectDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := maps.Clone(d.Attributes())
	lookup := []validator.String{stringvalidator.LengthAtLeast(1)}
	attrs[d.IDAttr] = schema.StringAttribute{Optional: true, Computed: true, Validators: lookup,
		MarkdownDescription: fmt.Sprintf("ID of the %s. Exactly one of `%s` and `name` is set.", d.Kind, d.IDAttr)}
	attrs["name"] = schema.StringAttribute{Optional: true, Computed: true, Validators: lookup, MarkdownDescription: d.NameDesc}
	resp.Schema = schema.Schema{MarkdownDescription: d.Description, Attributes: attrs}
}

func (d *ObjectDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot(d.IDAttr), path.MatchRoot("name"))}
}

func (d *ObjectDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var id, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(d.IDAttr), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	client, diags := d.Data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := fmt.Sprintf("%s %q", d.IDAttr, id.ValueString())
	if !name.IsNull() {
		what = fmt.Sprintf("name %q", name.ValueString())
	}
	attrs, err := d.Lookup(ctx, client, id.ValueString(), name.ValueString())
	if err != nil {
		AddClientError(&resp.Diagnostics, fmt.Sprintf("Could not read the %s with %s", d.Kind, what), err)
		return
	}
	if attrs == nil {
		at := path.Root(d.IDAttr)
		if !name.IsNull() {
			at = path.Root("name")
		}
		resp.Diagnostics.AddAttributeError(at, "No such "+d.Kind,
			fmt.Sprintf("The team has no %s with %s. The data source e2b_%ss lists them.", d.Kind, what, d.Kind))
		return
	}
	for k, v := range attrs {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(k), v)...)
	}
}
