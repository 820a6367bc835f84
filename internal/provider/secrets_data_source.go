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
	_ datasource.DataSource              = &secretsDataSource{}
	_ datasource.DataSourceWithConfigure = &secretsDataSource{}
)

// NewSecretsDataSource returns the e2b_secrets data source.
func NewSecretsDataSource() datasource.DataSource { return &secretsDataSource{} }

// secretsDataSource lists the team's secrets: metadata only, never values.
type secretsDataSource struct {
	data *ProviderData
}

type secretsDataSourceModel struct {
	Secrets types.List `tfsdk:"secrets"`
}

var secretAttrTypes = map[string]attr.Type{
	"secret_id":       types.StringType,
	"name":            types.StringType,
	"current_version": types.Int64Type,
	"metadata":        types.MapType{ElemType: types.StringType},
	"created_at":      timetypes.RFC3339Type{},
	"updated_at":      timetypes.RFC3339Type{},
}

func (d *secretsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_secrets"
}

func (d *secretsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The team's secrets (all pages), sorted by name: metadata only, E2B never returns values.",
		Attributes: map[string]schema.Attribute{
			"secrets": schema.ListNestedAttribute{
				MarkdownDescription: "The secrets.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: secretAttributes()},
			},
		},
	}
}

func (d *secretsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *secretsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := client.ListSecrets(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Could not list secrets", err)
		return
	}
	elems := make([]attr.Value, 0, len(list))
	for _, s := range list {
		elems = append(elems, types.ObjectValueMust(secretAttrTypes, secretAttrs(s)))
	}
	model := secretsDataSourceModel{Secrets: types.ListValueMust(types.ObjectType{AttrTypes: secretAttrTypes}, elems)}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// secretAttrs is a secret's metadata as the attributes of secretAttrTypes.
func secretAttrs(s e2b.Secret) map[string]attr.Value {
	return map[string]attr.Value{
		"secret_id": types.StringValue(s.SecretID), "name": types.StringValue(s.Name),
		"current_version": types.Int64Value(s.CurrentVersion), "metadata": stringMapValue(s.Metadata),
		"created_at": timetypes.NewRFC3339TimeValue(s.CreatedAt), "updated_at": timetypes.NewRFC3339TimeValue(s.UpdatedAt),
	}
}

// secretAttributes are the attributes of one secret, in the list and in the single-object data source.
func secretAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"secret_id":       schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the secret."},
		"name":            schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the secret (lower case)."},
		"current_version": schema.Int64Attribute{Computed: true, MarkdownDescription: "Version that sandboxes get."},
		"metadata":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata of the secret."},
		"created_at":      schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Creation time (RFC 3339)."},
		"updated_at":      schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Time of the last new version (RFC 3339)."},
	}
}
