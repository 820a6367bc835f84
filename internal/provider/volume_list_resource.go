package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewVolumeListResource returns the list resource for e2b_volume: the team's
// volumes with the identity of e2b_volume.
func NewVolumeListResource() list.ListResource {
	return &base.TeamListResource[e2b.Volume, base.NoFilter]{
		ResourceConfig: base.ResourceConfig{TypeName: "_volume"},
		Description: "Lists the team's volumes for `terraform query`, each with the identity of `e2b_volume` " +
			"(`volume_id`), so they can be imported into configuration. E2B's volume list has no filter. " +
			"The configuration it generates keeps the content token out of state (`expose_token = false`).",
		What:     "volumes",
		Fetch:    base.Unfiltered((*e2b.Client).ListVolumes),
		Display:  func(v e2b.Volume) string { return v.Name + " (" + v.VolumeID + ")" },
		Identity: func(v e2b.Volume) map[string]string { return map[string]string{"volume_id": v.VolumeID} },
		Values: func(v e2b.Volume) map[string]attr.Value {
			return map[string]attr.Value{
				"id":           types.StringValue(v.VolumeID),
				"volume_id":    types.StringValue(v.VolumeID),
				"name":         types.StringValue(v.Name),
				"expose_token": types.BoolValue(false),
			}
		},
	}
}
