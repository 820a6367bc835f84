package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// Private state of e2b_sandbox_folder.
const (
	// folderStampsKey remembers the size and modification time each file had after the last
	// write or hash, so a refresh downloads only the files that changed.
	folderStampsKey = "folder_stamps"
	// folderDirsKey lists the directories the resource created (relative to the destination),
	// the only ones destroy may remove, and only when empty.
	folderDirsKey = "folder_dirs"
)

var folderFileType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"sha256": types.StringType,
	"size":   types.Int64Type,
	"mode":   types.StringType,
}}

// folderFilesValue is the files attribute for files.
func folderFilesValue(files []e2b.FolderFile) types.Map {
	elems := make(map[string]attr.Value, len(files))
	for _, f := range files {
		elems[f.Path] = types.ObjectValueMust(folderFileType.AttrTypes, map[string]attr.Value{
			"sha256": types.StringValue(f.SHA256),
			"size":   types.Int64Value(f.Size),
			"mode":   types.StringValue(fmt.Sprintf("%04o", f.Mode)),
		})
	}
	return types.MapValueMust(folderFileType, elems)
}

// folderFilesFrom reads the files attribute, in path order; null gives none.
func folderFilesFrom(ctx context.Context, m types.Map) ([]e2b.FolderFile, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.IsNull() || m.IsUnknown() {
		return nil, diags
	}
	var raw map[string]struct {
		SHA256 types.String `tfsdk:"sha256"`
		Size   types.Int64  `tfsdk:"size"`
		Mode   types.String `tfsdk:"mode"`
	}
	diags.Append(m.ElementsAs(ctx, &raw, false)...)
	out := make([]e2b.FolderFile, 0, len(raw))
	for p, f := range raw {
		mode, err := strconv.ParseUint(f.Mode.ValueString(), 8, 32)
		if err != nil {
			mode = 0 // Unreadable: differs from any real mode, so the next apply sets it.
		}
		out = append(out, e2b.FolderFile{Path: p, SHA256: f.SHA256.ValueString(), Size: f.Size.ValueInt64(), Mode: uint32(mode)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, diags
}

// folderStamp is what a file looked like after the provider wrote or hashed it.
type folderStamp struct {
	Size     int64     `json:"s"`
	Modified time.Time `json:"m"`
	SHA256   string    `json:"h"`
	// Unread: found changed by its size and not read (e2b.RemoteFile.Unread).
	Unread bool `json:"u,omitempty"`
}

func getFolderStamps(ctx context.Context, p base.PrivateState) map[string]folderStamp {
	b, _ := p.GetKey(ctx, folderStampsKey)
	var s map[string]folderStamp
	if len(b) == 0 || json.Unmarshal(b, &s) != nil {
		return map[string]folderStamp{} // None or unreadable: everything is hashed again.
	}
	return s
}

func setFolderStamps(ctx context.Context, p base.PrivateState, s map[string]folderStamp) diag.Diagnostics {
	b, _ := json.Marshal(s) // strings, numbers and times only: cannot fail
	return p.SetKey(ctx, folderStampsKey, b)
}

func getFolderDirs(ctx context.Context, p base.PrivateState) []string {
	b, _ := p.GetKey(ctx, folderDirsKey)
	var dirs []string
	if len(b) > 0 {
		_ = json.Unmarshal(b, &dirs) // Unreadable: no directory is removed.
	}
	return dirs
}

func setFolderDirs(ctx context.Context, p base.PrivateState, dirs []string) diag.Diagnostics {
	if len(dirs) == 0 {
		return p.SetKey(ctx, folderDirsKey, nil)
	}
	sort.Strings(dirs)
	b, _ := json.Marshal(dirs)
	return p.SetKey(ctx, folderDirsKey, b)
}

// setFolderFiles records files in the model: the map and its digest.
func (m *sandboxFolderModel) setFolderFiles(files []e2b.FolderFile) {
	m.Files = folderFilesValue(files)
	m.SHA256 = types.StringValue(e2b.FolderDigest(files))
}
