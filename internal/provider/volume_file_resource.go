package provider

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ resource.ResourceWithConfigure        = &volumeFileResource{}
	_ resource.ResourceWithImportState      = &volumeFileResource{}
	_ resource.ResourceWithIdentity         = &volumeFileResource{}
	_ resource.ResourceWithModifyPlan       = &volumeFileResource{}
	_ resource.ResourceWithConfigValidators = &volumeFileResource{}
)

// NewVolumeFileResource returns the e2b_volume_file resource.
func NewVolumeFileResource() resource.Resource {
	return &volumeFileResource{base.OwnedPathResource{ResourceConfig: base.ResourceConfig{TypeName: "_volume_file"}, Named: volumeFilePath},
		fileContentPlan{placedBy: []string{"volume_id", "path"}}}
}

type volumeFileResource struct {
	base.OwnedPathResource
	fileContentPlan
}

// volumeFilePath names a volume file: its import ID and identity.
var volumeFilePath = base.OwnedPath{
	Owner: "volume_id", OwnerDesc: "ID of the volume the file lives in.",
	Path: "path", PathDesc: "Absolute path of the file in the volume.",
	Example:   "vol123:/data/config.json",
	CheckPath: []func(string) string{validators.CheckNoControlChars, e2b.CheckVolumePath}, ID: volumeFileID,
}

// volumeFileIdentity is the resource identity: the volume and the path.
type volumeFileIdentity struct {
	VolumeID types.String `tfsdk:"volume_id"`
	Path     types.String `tfsdk:"path"`
}

func (m *volumeFileModel) identity() volumeFileIdentity {
	return volumeFileIdentity{VolumeID: m.VolumeID, Path: m.Path}
}

// The private state keeps, under remoteFileKey, the size and modification time
// the last write or hash saw (a remoteFileStamp, as e2b_sandbox_file does):
// an entry that still has both is taken as unchanged without a download.
func volumeStampMatches(s *remoteFileStamp, e *e2b.VolumeEntry, stateSHA256 string) bool {
	return s != nil && s.SHA256 == stateSHA256 && s.Size == e.Size && !s.Modified.IsZero() && s.Modified.Equal(e.MTime)
}

func (r *volumeFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m volumeFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	stamp, diags := r.write(ctx, &m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.save(ctx, &m, stamp, &resp.State, resp.Identity, resp.Private)...)
}

// Update rewrites the file when its content changed (or drifted), and
// otherwise changes only its mode and owner.
func (r *volumeFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state volumeFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	stamp, diags := getRemoteStamp(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if plan.SHA256.IsUnknown() || !plan.SHA256.Equal(state.SHA256) || stamp == nil {
		s, diags := r.write(ctx, &plan)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		resp.Diagnostics.Append(r.save(ctx, &plan, s, &resp.State, resp.Identity, resp.Private)...)
		return
	}
	client, diags := r.Data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	entry, err := client.VolumeFiles(plan.VolumeID.ValueString()).SetOwnership(ctx, plan.Path.ValueString(), ownershipOf(plan))
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not change the mode or owner of "+plan.Path.ValueString(), err)
		return
	}
	setEntryAttributes(&plan, entry)
	plan.SHA256, plan.Size = state.SHA256, state.Size
	stamp.Modified = entry.MTime // a metadata change may touch it on some file systems
	resp.Diagnostics.Append(r.save(ctx, &plan, *stamp, &resp.State, resp.Identity, resp.Private)...)
}

func (r *volumeFileResource) save(ctx context.Context, m *volumeFileModel, stamp remoteFileStamp, state *tfsdk.State,
	identity *tfsdk.ResourceIdentity, private base.PrivateState) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(state.Set(ctx, m)...)
	diags.Append(identity.Set(ctx, m.identity())...)
	diags.Append(setRemoteStamp(ctx, private, stamp)...)
	diags.Append(base.SetLocalSeen(ctx, private, nil)...)
	return diags
}

// ownershipOf is the mode and owner to send: those configured or planned
// (the state's, when unset), left out when not known yet (a new file).
func ownershipOf(m volumeFileModel) e2b.VolumeOwnership {
	var o e2b.VolumeOwnership
	if !m.Mode.IsUnknown() && !m.Mode.IsNull() {
		if v, err := strconv.ParseUint(m.Mode.ValueString(), 8, 32); err == nil {
			mode := uint32(v)
			o.Mode = &mode
		}
	}
	for _, f := range []struct {
		v  types.Int64
		to **uint32
	}{{m.UID, &o.UID}, {m.GID, &o.GID}} {
		if !f.v.IsUnknown() && !f.v.IsNull() {
			n := uint32(f.v.ValueInt64())
			*f.to = &n
		}
	}
	return o
}

func setEntryAttributes(m *volumeFileModel, e *e2b.VolumeEntry) {
	m.ID = types.StringValue(volumeFileID(m.VolumeID.ValueString(), m.Path.ValueString()))
	m.Mode = types.StringValue(fmt.Sprintf("%04o", e.Mode))
	m.UID = types.Int64Value(int64(e.UID))
	m.GID = types.Int64Value(int64(e.GID))
}

// write uploads the configured content, streamed and hashed on the way, and
// fills the computed attributes.
func (r *volumeFileResource) write(ctx context.Context, m *volumeFileModel) (remoteFileStamp, diag.Diagnostics) {
	var diags diag.Diagnostics
	client, diags := r.Data.Client()
	if diags.HasError() {
		return remoteFileStamp{}, diags
	}
	c := contentFrom(m.Content, m.ContentBase64, m.Source)
	// Each attempt reads the content from the start and hashes what it sent.
	var hr *hashingReader
	open := func() (io.ReadCloser, error) {
		src, err := c.open()
		if err != nil {
			return nil, err
		}
		hr = newHashingReader(src)
		return struct {
			io.Reader
			io.Closer
		}{hr, src}, nil
	}
	target := m.Path.ValueString()
	entry, err := client.VolumeFiles(m.VolumeID.ValueString()).WriteFile(ctx, target, open, ownershipOf(*m))
	if err != nil {
		base.AddClientError(&diags, "Could not write "+target+" in volume "+m.VolumeID.ValueString(), err)
		return remoteFileStamp{}, diags
	}
	sum := hr.sum()
	if planned := m.SHA256; !planned.IsUnknown() && planned.ValueString() != sum {
		diags.AddAttributeError(path.Root(c.attrName), "File content changed during apply",
			fmt.Sprintf("The %s changed between plan and apply (planned sha256 %s, written %s). "+
				"The volume now holds the new content; run the plan again.", c.attrName, planned.ValueString(), sum))
		return remoteFileStamp{}, diags
	}
	setEntryAttributes(m, entry)
	m.SHA256 = types.StringValue(sum)
	m.Size = types.Int64Value(hr.n)
	return remoteFileStamp{Size: hr.n, Modified: entry.MTime, SHA256: sum}, diags
}

func (r *volumeFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state volumeFileModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.Identity.Set(ctx, state.identity())...)
	volumeID, target := state.VolumeID.ValueString(), state.Path.ValueString()
	files := client.VolumeFiles(volumeID)
	imported := state.imported()
	entry, err := files.Stat(ctx, target)
	switch {
	case err == nil && entry.Type != e2b.VolumeEntryFile:
		what := "not a regular file (" + entry.Type + ")"
		if entry.Type == e2b.VolumeEntryDirectory {
			what = "a directory"
		}
		resp.Diagnostics.Append(notARegularFile(target, fmt.Sprintf("volume %q", volumeID), what, "e2b_volume_file",
			"(through a sandbox that mounts the volume)", imported))
		return
	case err == nil:
	case e2b.IsNotFound(err):
		resp.Diagnostics.AddWarning("Volume file deleted",
			fmt.Sprintf("%s no longer exists in volume %q (the file or the volume was deleted outside Terraform); "+
				"it was removed from state and the next apply writes it again.", target, volumeID))
		resp.State.RemoveResource(ctx)
		return
	default:
		base.AddClientError(&resp.Diagnostics, "Could not check "+target+" in volume "+volumeID, err)
		return
	}
	setEntryAttributes(&state, entry)
	stamp, diags := getRemoteStamp(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if !volumeStampMatches(stamp, entry, state.SHA256.ValueString()) {
		newStamp, drifted := sizeDrift(stamp, entry.Size, entry.MTime)
		var text *string
		var diags diag.Diagnostics
		if !drifted {
			newStamp, text, diags = hashVolumeFile(ctx, files, entry, imported)
		}
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if stamp != nil && stamp.SHA256 != newStamp.SHA256 {
			tflog.Info(ctx, "volume file changed since the last apply", map[string]any{"path": target})
		}
		state.applyHashed(newStamp, text)
		resp.Diagnostics.Append(setRemoteStamp(ctx, resp.Private, newStamp)...)
	}
	resp.Diagnostics.Append(base.SetLocalSeen(ctx, resp.Private, seeLocalFile(ctx, state.Source, state.SHA256))...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// hashVolumeFile downloads the file as a stream and hashes it (see hashFile).
func hashVolumeFile(ctx context.Context, files *e2b.VolumeFiles, entry *e2b.VolumeEntry, wantText bool) (remoteFileStamp, *string, diag.Diagnostics) {
	body, err := files.ReadFile(ctx, entry.Path)
	if err != nil {
		var diags diag.Diagnostics
		base.AddClientError(&diags, "Could not read "+entry.Path, err)
		return remoteFileStamp{}, nil, diags
	}
	return hashFile(ctx, body, entry.Size, entry.MTime, wantText, "Could not read "+entry.Path)
}

func (r *volumeFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state volumeFileModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	volumeID, target := state.VolumeID.ValueString(), state.Path.ValueString()
	err := client.VolumeFiles(volumeID).RemoveFile(ctx, target)
	switch {
	case err == nil, e2b.IsNotFound(err): // gone, or its volume is
	case e2b.IsNotAFile(err):
		resp.Diagnostics.AddWarning("File not deleted",
			fmt.Sprintf("%s in volume %q is not the file this resource wrote any more: %v. It was left in place "+
				"and removed from state; the provider deletes only files, never a directory.", target, volumeID, err))
	default:
		base.AddClientError(&resp.Diagnostics, "Could not delete "+target+" in volume "+volumeID, err)
	}
}

func volumeFileID(volumeID, p string) string { return volumeID + ":" + p }
