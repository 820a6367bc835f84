package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewVolumeDataSource returns the e2b_volume data source: one volume, never its token.
func NewVolumeDataSource() datasource.DataSource {
	return &base.ObjectDataSource{
		TypeSuffix: "volume", Kind: "volume", IDAttr: "volume_id",
		Description: "One of the team's volumes, by ID or by name. Its content token is never read into state: " +
			"`e2b_volume_file` and `e2b_volume_files` fetch it themselves.",
		NameDesc:   "Name of the volume; the key of `e2b_sandbox.volume_mounts`. Exactly one of `volume_id` and `name` is set.",
		Attributes: volumeAttributes,
		Lookup: func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error) {
			if id != "" {
				v, err := c.GetVolume(ctx, id)
				if e2b.IsNotFound(err) {
					return nil, nil
				}
				if err != nil {
					return nil, err
				}
				return volumeAttrs(*v), nil
			}
			list, err := c.ListVolumes(ctx)
			if err != nil {
				return nil, err
			}
			for _, v := range list {
				if v.Name == name { // E2B keeps volume names unique in a team
					return volumeAttrs(v), nil
				}
			}
			return nil, nil
		},
	}
}
