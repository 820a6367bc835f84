package provider

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ datasource.DataSource              = &volumesDataSource{}
	_ datasource.DataSourceWithConfigure = &volumesDataSource{}
)

// NewVolumesDataSource returns the e2b_volumes data source.
func NewVolumesDataSource() datasource.DataSource { return &volumesDataSource{} }

// volumesDataSource lists the team's volumes (never their tokens).
type volumesDataSource struct {
	data *ProviderData
}

type volumesDataSourceModel struct {
	Volumes types.List `tfsdk:"volumes"`
}

var volumeAttrTypes = map[string]attr.Type{"volume_id": types.StringType, "name": types.StringType}

func (d *volumesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volumes"
}

func (d *volumesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The team's volumes, sorted by name. Tokens are not listed.",
		Attributes: map[string]schema.Attribute{
			"volumes": schema.ListNestedAttribute{
				MarkdownDescription: "The volumes.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: volumeAttributes()},
			},
		},
	}
}

func (d *volumesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *volumesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := client.ListVolumes(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Could not list volumes", err)
		return
	}
	slices.SortFunc(list, func(a, b e2b.Volume) int { return strings.Compare(a.Name, b.Name) })
	elems := make([]attr.Value, 0, len(list))
	for _, v := range list {
		elems = append(elems, types.ObjectValueMust(volumeAttrTypes, volumeAttrs(v)))
	}
	model := volumesDataSourceModel{Volumes: types.ListValueMust(types.ObjectType{AttrTypes: volumeAttrTypes}, elems)}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// volumeAttrs is a volume as the attributes of volumeAttrTypes (never its token).
func volumeAttrs(v e2b.Volume) map[string]attr.Value {
	return map[string]attr.Value{"volume_id": types.StringValue(v.VolumeID), "name": types.StringValue(v.Name)}
}

// volumeAttributes are the attributes of one volume, in the list and in the single-object data source.
func volumeAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"volume_id": schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the volume."},
		"name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the volume; the key of `e2b_sandbox.volume_mounts`."},
	}
}
