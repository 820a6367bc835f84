package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ list.ListResource              = &volumeListResource{}
	_ list.ListResourceWithConfigure = &volumeListResource{}
)

// NewVolumeListResource returns the list resource for e2b_volume
// (`terraform query`, Terraform 1.14 and later).
func NewVolumeListResource() list.ListResource { return &volumeListResource{} }

// volumeListResource lists the team's volumes with the identity of e2b_volume.
type volumeListResource struct {
	data *ProviderData
}

func (l *volumeListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

func (l *volumeListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's volumes for `terraform query`, each with the identity of `e2b_volume` " +
			"(`volume_id`), so they can be imported into configuration. E2B's volume list has no filter. " +
			"The configuration it generates keeps the content token out of state (`expose_token = false`).",
	}
}

func (l *volumeListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *volumeListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	client, diags := l.data.Client()
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list volumes", func() ([]e2b.Volume, error) { return client.ListVolumes(ctx) },
		func(v e2b.Volume) list.ListResult {
			return listResult(ctx, req, v.Name+" ("+v.VolumeID+")", map[string]string{"volume_id": v.VolumeID}, func() map[string]attr.Value {
				return map[string]attr.Value{
					"id":           types.StringValue(v.VolumeID),
					"volume_id":    types.StringValue(v.VolumeID),
					"name":         types.StringValue(v.Name),
					"expose_token": types.BoolValue(false),
				}
			})
		})
}
