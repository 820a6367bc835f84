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
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewVolumesDataSource returns the e2b_volumes data source: the team's
// volumes (never their tokens), sorted by name.
func NewVolumesDataSource() datasource.DataSource {
	return &base.ListDataSource[e2b.Volume]{
		TypeSuffix:  "volumes",
		Description: "The team's volumes, sorted by name. Tokens are not listed.",
		Attributes:  volumeAttributes,
		Fetch: func(ctx context.Context, c *e2b.Client) ([]e2b.Volume, error) {
			list, err := c.ListVolumes(ctx)
			slices.SortFunc(list, func(a, b e2b.Volume) int { return strings.Compare(a.Name, b.Name) })
			return list, err
		},
		Attrs: volumeAttrs,
	}
}

// volumeAttrs is a volume as the attributes of volumeAttributes (never its token).
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
