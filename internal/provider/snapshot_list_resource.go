package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ list.ListResource              = &snapshotListResource{}
	_ list.ListResourceWithConfigure = &snapshotListResource{}
)

// NewSnapshotListResource returns the list resource for e2b_snapshot
// (`terraform query`, Terraform 1.14 and later).
func NewSnapshotListResource() list.ListResource { return &snapshotListResource{} }

// snapshotListResource lists the team's snapshots with the identity of e2b_snapshot.
type snapshotListResource struct {
	data *ProviderData
}

type snapshotListConfigModel struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
	Name      types.String `tfsdk:"name"`
}

func (l *snapshotListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

func (l *snapshotListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's persistent snapshots for `terraform query` (every page), each with the " +
			"identity of `e2b_snapshot` (`snapshot_id`), so they can be imported into configuration. E2B's listing does " +
			"not name a snapshot's source sandbox, so the configuration it generates has `sandbox_id = null`: an " +
			"imported snapshot needs none.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "Only the snapshots of this sandbox.",
				Optional:            true,
				Validators:          sandboxIDValidators(),
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Only the snapshots of this name or ID (optionally `<namespace>/<name>`, or with `:<tag>`).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

func (l *snapshotListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *snapshotListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg snapshotListConfigModel
	diags := req.Config.Get(ctx, &cfg)
	client, d := l.data.Client()
	diags.Append(d...)
	if listFailed(stream, diags) {
		return
	}
	params := e2b.ListSnapshotsParams{SandboxID: cfg.SandboxID.ValueString(), Name: cfg.Name.ValueString()}
	streamListed(req, stream, "Could not list snapshots", func() ([]e2b.SnapshotInfo, error) { return client.ListSnapshots(ctx, params) },
		func(s e2b.SnapshotInfo) list.ListResult {
			return listResult(ctx, req, s.SnapshotID, map[string]string{"snapshot_id": s.SnapshotID}, func() map[string]attr.Value {
				var m snapshotModel
				m.apply(s)
				return map[string]attr.Value{
					"id":          m.ID,
					"snapshot_id": m.SnapshotID,
					"template_id": m.TemplateID,
					"names":       m.Names,
					"name":        snapshotName(s.Names),
				}
			})
		})
}
