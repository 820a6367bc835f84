package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// NewSnapshotListResource returns the list resource for e2b_snapshot: the
// team's snapshots, filtered as E2B's list is, with the identity of
// e2b_snapshot.
func NewSnapshotListResource() list.ListResource {
	return &base.TeamListResource[e2b.SnapshotInfo, snapshotListConfigModel]{
		ResourceConfig: base.ResourceConfig{TypeName: "_snapshot"},
		Description: "Lists the team's persistent snapshots for `terraform query` (every page), each with the " +
			"identity of `e2b_snapshot` (`snapshot_id`), so they can be imported into configuration. E2B's listing does " +
			"not name a snapshot's source sandbox, so the configuration it generates has `sandbox_id = null`: an " +
			"imported snapshot needs none. E2B lists each snapshot template once, as its newest snapshot: an older " +
			"snapshot of a name is listed by its ID (`name = \"<namespace>/<name>:<tag>\"`).",
		Filter: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "Only the snapshot templates first taken from this sandbox.",
				Optional:            true,
				Validators:          validators.SandboxID(),
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Only the snapshot template of this name or ID (optionally `<namespace>/<name>`), as its " +
					"newest snapshot; with `:<tag>`, as its newest snapshot under that tag.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
		What: "snapshots",
		Fetch: func(ctx context.Context, c *e2b.Client, f snapshotListConfigModel) ([]e2b.SnapshotInfo, error) {
			return c.ListSnapshots(ctx, e2b.ListSnapshotsParams{SandboxID: f.SandboxID.ValueString(), Name: f.Name.ValueString()})
		},
		Display:  func(s e2b.SnapshotInfo) string { return s.SnapshotID },
		Identity: func(s e2b.SnapshotInfo) map[string]string { return map[string]string{"snapshot_id": s.SnapshotID} },
		Values: func(s e2b.SnapshotInfo) map[string]attr.Value {
			var m snapshotModel
			m.apply(s)
			return map[string]attr.Value{
				"id":          m.ID,
				"snapshot_id": m.SnapshotID,
				"template_id": m.TemplateID,
				"names":       m.Names,
				"name":        snapshotName(s.Names),
			}
		},
	}
}

type snapshotListConfigModel struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
	Name      types.String `tfsdk:"name"`
}
