package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &volumeFilesDataSource{}
)

// NewVolumeFilesDataSource returns the e2b_volume_files data source.
func NewVolumeFilesDataSource() datasource.DataSource {
	return &volumeFilesDataSource{base.DataSourceConfig{TypeName: "_volume_files"}}
}

// volumeFilesDataSource lists a folder of a volume through the volume-content API.
type volumeFilesDataSource struct {
	base.DataSourceConfig
}

type volumeFilesModel struct {
	VolumeID types.String `tfsdk:"volume_id"`
	Path     types.String `tfsdk:"path"`
	Depth    types.Int64  `tfsdk:"depth"`
	Entries  types.List   `tfsdk:"entries"`
}

var volumeEntryAttrTypes = convert.NestedAttrTypes(volumeEntryAttributes())

// volumeEntryAttributes are the attributes of one entry of entries.
func volumeEntryAttributes() map[string]schema.Attribute {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return map[string]schema.Attribute{
		"name":        computed("Base name."),
		"path":        computed("Absolute path in the volume."),
		"type":        computed("`file`, `directory`, `symlink` or `unknown`."),
		"size":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Size in bytes."},
		"mode":        computed("Permission bits in octal, such as `0644`."),
		"uid":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Owner's user ID."},
		"gid":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Owner's group ID."},
		"target":      computed("Where a link points (empty for other entries)."),
		"modified_at": base.ComputedDataSourceTime("Last modification (RFC 3339)."),
		"accessed_at": base.ComputedDataSourceTime("Last access (RFC 3339)."),
		"changed_at":  base.ComputedDataSourceTime("Last status change (RFC 3339)."),
	}
}

func (d *volumeFilesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The files, directories and links in a folder of a volume, read through E2B's " +
			"volume-content API (no sandbox is started), in the order E2B gives them. The volume's content token is " +
			"fetched from the volume and never stored.",
		Attributes: map[string]schema.Attribute{
			"volume_id": schema.StringAttribute{
				MarkdownDescription: "ID of the volume.", Required: true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1), validators.NoControlChars()},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Absolute path of the folder in the volume. Default `/`, the volume's root.",
				Optional:            true, Computed: true,
				Validators: []validator.String{validators.NoControlChars(), validators.StringRule{Desc: "must be a clean absolute path",
					Summary: "Invalid volume path", Check: checkVolumeFolder}},
			},
			"depth": schema.Int64Attribute{
				MarkdownDescription: "How many levels to list: `1` (the default) lists the folder's own entries, `2` also those of its subfolders, and so on.",
				Optional:            true, Computed: true,
				Validators: []validator.Int64{int64validator.Between(1, 64)},
			},
			"entries": base.ComputedDataSourceList("The entries.", volumeEntryAttributes()),
		},
	}
}

// checkVolumeFolder is e2b.CheckVolumePath that also takes the root.
func checkVolumeFolder(p string) string {
	if p == "/" {
		return ""
	}
	return e2b.CheckVolumePath(p)
}

func (d *volumeFilesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m volumeFilesModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	if m.Path.IsNull() {
		m.Path = types.StringValue("/")
	}
	if m.Depth.IsNull() {
		m.Depth = types.Int64Value(1)
	}
	volumeID, dir := m.VolumeID.ValueString(), m.Path.ValueString()
	list, err := client.VolumeFiles(volumeID).List(ctx, dir, int(m.Depth.ValueInt64()))
	if e2b.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Folder not found",
			fmt.Sprintf("Volume %q has no folder %s, or the volume does not exist: %v", volumeID, dir, err))
		return
	}
	if err != nil {
		base.AddClientError(&resp.Diagnostics, fmt.Sprintf("Could not list %s in volume %q", dir, volumeID), err)
		return
	}
	elems := make([]attr.Value, 0, len(list))
	for _, e := range list {
		elems = append(elems, types.ObjectValueMust(volumeEntryAttrTypes, map[string]attr.Value{
			"name": types.StringValue(e.Name), "path": types.StringValue(e.Path), "type": types.StringValue(e.Type),
			"size": types.Int64Value(e.Size), "mode": types.StringValue(fmt.Sprintf("%04o", e.Mode)),
			"uid": types.Int64Value(int64(e.UID)), "gid": types.Int64Value(int64(e.GID)), "target": types.StringValue(e.Target),
			"modified_at": timetypes.NewRFC3339TimeValue(e.MTime), "accessed_at": timetypes.NewRFC3339TimeValue(e.ATime),
			"changed_at": timetypes.NewRFC3339TimeValue(e.CTime),
		}))
	}
	m.Entries = types.ListValueMust(types.ObjectType{AttrTypes: volumeEntryAttrTypes}, elems)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
