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
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &snapshotsDataSource{}
)

// NewSnapshotsDataSource returns the e2b_snapshots data source.
func NewSnapshotsDataSource() datasource.DataSource {
	return &snapshotsDataSource{base.DataSourceConfig{TypeName: "_snapshots"}}
}

// snapshotsDataSource lists persistent snapshots.
type snapshotsDataSource struct {
	base.DataSourceConfig
}

type snapshotsDataSourceModel struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
	Name      types.String `tfsdk:"name"`
	Snapshots types.List   `tfsdk:"snapshots"`
}

var snapshotAttrTypes = convert.NestedAttrTypes(snapshotAttributes())

// snapshotAttributes are the attributes of one snapshot of snapshots.
func snapshotAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"snapshot_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Snapshot ID; usable as `template` of an `e2b_sandbox`."},
		"names":       schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names of the snapshot's template (`<namespace>/<name>`, without a tag)."},
	}
}

func (d *snapshotsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Persistent snapshots of the team (all pages), optionally only those of one sandbox or with one name. " +
			"E2B lists each snapshot template once, as its newest snapshot: an older snapshot of a name is listed by its ID " +
			"(`name = \"<namespace>/<name>:<tag>\"`).",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{Optional: true, MarkdownDescription: "Only snapshot templates first taken from this sandbox.", Validators: validators.SandboxID()},
			"name":       schema.StringAttribute{Optional: true, MarkdownDescription: "Only the snapshot template with this name or ID (`name`, `namespace/name`), as its newest snapshot; with `:tag`, as its newest snapshot under that tag."},
			"snapshots":  base.ComputedDataSourceList("The snapshots.", snapshotAttributes()),
		},
	}
}

func (d *snapshotsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model snapshotsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	params := e2b.ListSnapshotsParams{SandboxID: model.SandboxID.ValueString(), Name: model.Name.ValueString()}
	snapshots, ok := base.Listed(d.Data, &resp.Diagnostics, "Could not list snapshots",
		func(c *e2b.Client) ([]e2b.SnapshotInfo, error) { return c.ListSnapshots(ctx, params) })
	if !ok {
		return
	}
	model.Snapshots = base.ObjectList(snapshotAttrTypes, snapshots, func(s e2b.SnapshotInfo) map[string]attr.Value {
		return map[string]attr.Value{"snapshot_id": types.StringValue(s.SnapshotID), "names": convert.StringListValue(s.Names)}
	})
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
