package provider

import (
	"context"
	"maps"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// volumeFileModel maps e2b_volume_file.
type volumeFileModel struct {
	fileContentModel
	ID       types.String `tfsdk:"id"`
	VolumeID types.String `tfsdk:"volume_id"`
	Path     types.String `tfsdk:"path"`
	Mode     types.String `tfsdk:"mode"`
	UID      types.Int64  `tfsdk:"uid"`
	GID      types.Int64  `tfsdk:"gid"`
}

// volumeModeValidator refuses, at plan, a mode spelled otherwise than E2B reports it.
func volumeModeValidator() validator.String {
	return validators.StringRule{Desc: "must be four octal digits of permission bits, such as \"0644\"", Summary: "Invalid file mode",
		Check: e2b.CheckVolumeMode}
}

// volumePathValidator applies E2B's rules for a path in a volume at plan time.
func volumePathValidator() validator.String {
	return validators.StringRule{Desc: "must be a clean absolute path inside the volume", Summary: "Invalid volume path", Check: e2b.CheckVolumePath}
}

func (r *volumeFileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	stableInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	owner := []validator.Int64{int64validator.Between(0, math.MaxUint32)}
	attrs := fileContentAttributes("volume")
	maps.Copy(attrs, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<volume_id>:<path>`.",
			Computed:            true,
			PlanModifiers:       stable,
		},
		"volume_id": schema.StringAttribute{
			MarkdownDescription: "ID of the volume (`e2b_volume.<name>.id`). Changing it writes the file in the new volume.",
			Required:            true,
			PlanModifiers:       replace,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1), validators.NoControlChars()},
		},
		"path": schema.StringAttribute{
			MarkdownDescription: "Absolute path of the file inside the volume, such as `/data/config.json`: clean " +
				"(no `//`, `.` or `..` parts) and not the root. Changing it replaces the resource (the old file is deleted).",
			Required:      true,
			PlanModifiers: replace,
			Validators:    []validator.String{validators.NoControlChars(), volumePathValidator()},
		},
		"mode": schema.StringAttribute{
			MarkdownDescription: "Permission bits as four octal digits, such as `0644` (the form E2B reports and " +
				"state records: `644` is refused at plan, naming `0644`; setuid, setgid and sticky bits, as in " +
				"`4755`, are refused because the volume's file listing reports permission bits only, which is " +
				"what the emulator does and a guess for E2B). Unset, a new file gets E2B's default " +
				"(`0644` in the emulator) and a rewrite keeps what the file has.",
			Optional:      true,
			Computed:      true,
			PlanModifiers: stable,
			Validators:    []validator.String{volumeModeValidator()},
		},
		"uid": schema.Int64Attribute{
			MarkdownDescription: "Owner's user ID. Unset, E2B chooses it for a new file and a rewrite keeps it.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       stableInt,
			Validators:          owner,
		},
		"gid": schema.Int64Attribute{
			MarkdownDescription: "Owner's group ID. Unset, E2B chooses it for a new file and a rewrite keeps it.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       stableInt,
			Validators:          owner,
		},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A file in a volume, written through E2B's volume-content API: no sandbox is started. " +
			"Exactly one of `content`, `content_base64` or `source` gives its bytes; changing them rewrites the file " +
			"in place, and changing only `mode`, `uid` or `gid` changes them in place. Missing parent directories " +
			"are created; destroy deletes the file only, never a directory (a path that became a directory is left " +
			"alone). Changes made through a sandbox that mounts the volume show up in the next plan: refresh " +
			"compares size and modification time with those of the last write or hash, and downloads the file to " +
			"hash it only when one of them changed (so an edit that keeps both goes unnoticed). A file deleted " +
			"outside Terraform, or whose volume was deleted, leaves state with a warning and is planned again. " +
			"The volume's content token is fetched from the volume when needed and never stored in state. Writing " +
			"the same content to the same path twice has the effect of writing it once, so a write whose answer " +
			"was lost is sent again, and a create that was interrupted leaves at most the file, which the next apply " +
			"writes over. Import with `<volume_id>:<path>` or by identity; a text file of up to 1 MiB " +
			"gets its `content` filled in.",
		Attributes: attrs,
	}
}
