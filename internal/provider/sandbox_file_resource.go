package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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
	_ resource.ResourceWithConfigure        = &sandboxFileResource{}
	_ resource.ResourceWithImportState      = &sandboxFileResource{}
	_ resource.ResourceWithIdentity         = &sandboxFileResource{}
	_ resource.ResourceWithModifyPlan       = &sandboxFileResource{}
	_ resource.ResourceWithConfigValidators = &sandboxFileResource{}
)

// remoteFileKey names the private state that remembers what the sandbox held
// after our last write or hash, so refresh can skip downloading unchanged files.
const remoteFileKey = "remote_file"

// contentTagKey is the file metadata key under which a write tags the file with the sha256 of
// what it wrote (envd keeps it as an extended attribute and Stat returns it), so the first
// refresh after a write can recognise the file without a read-back after the upload.
const contentTagKey = "terraform-sha256"

// NewSandboxFileResource returns the e2b_sandbox_file resource.
func NewSandboxFileResource() resource.Resource {
	return &sandboxFileResource{base.OwnedPathResource{ResourceConfig: base.ResourceConfig{TypeName: "_sandbox_file"}, Named: sandboxFilePath},
		fileContentPlan{placedBy: []string{"sandbox_id", "path", "user"}}}
}

type sandboxFileResource struct {
	base.OwnedPathResource
	fileContentPlan
}

// sandboxFilePath names a sandbox file: its import ID and identity.
var sandboxFilePath = base.OwnedPath{
	Owner: "sandbox_id", OwnerDesc: "ID of the sandbox the file lives in.",
	Path: "path", PathDesc: "Absolute path of the file in the sandbox.",
	Example: "i1a2b3c4:/home/user/app.py", CheckOwner: validators.CheckSandboxID,
	CheckPath: []func(string) string{validators.CheckNoControlChars, validators.CheckFilePath}, ID: fileID,
}

// sandboxFileIdentity is the resource identity: the sandbox and the absolute path.
type sandboxFileIdentity struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
	Path      types.String `tfsdk:"path"`
}

// identity uses the configured path until the absolute one is known (right after an import).
func (m *sandboxFileModel) identity() sandboxFileIdentity {
	p := m.AbsolutePath
	if p.IsNull() || p.IsUnknown() {
		p = m.Path
	}
	return sandboxFileIdentity{SandboxID: m.SandboxID, Path: p}
}

// remoteFileStamp is the size and modification time a hash belongs to.
type remoteFileStamp struct {
	Size int64 `json:"size"`
	// Modified is zero after a write (the upload's answer does not tell it) until a refresh
	// records what Stat says.
	Modified time.Time `json:"modified"`
	SHA256   string    `json:"sha256"`
	// Tagged says that the write tagged the file with SHA256 under contentTagKey.
	Tagged bool `json:"tagged,omitempty"`
}

// matches tells whether entry is still the file the stamp describes: the same size and
// modification time, or, right after a write, the same size and the write's tag.
func (s *remoteFileStamp) matches(entry *e2b.EntryInfo, stateSHA256 string) bool {
	if s == nil || s.SHA256 != stateSHA256 || s.Size != entry.Size {
		return false
	}
	if s.Modified.IsZero() {
		return s.Tagged && entry.Metadata[contentTagKey] == s.SHA256
	}
	return s.Modified.Equal(entry.ModifiedTime)
}

func (r *sandboxFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(r.writePlanned(ctx, req.Plan, &resp.State, resp.Identity, resp.Private)...)
}

// Update writes the file again: creating and changing it are the same upload.
func (r *sandboxFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(r.writePlanned(ctx, req.Plan, &resp.State, resp.Identity, resp.Private)...)
}

// writePlanned uploads the planned content and records the result.
func (r *sandboxFileResource) writePlanned(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State,
	identity *tfsdk.ResourceIdentity, private base.PrivateState) diag.Diagnostics {
	var m sandboxFileModel
	diags := plan.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	stamp, d := r.write(ctx, &m, private)
	diags.Append(d...)
	if diags.HasError() {
		return diags
	}
	diags.Append(state.Set(ctx, &m)...)
	diags.Append(identity.Set(ctx, m.identity())...)
	diags.Append(setRemoteStamp(ctx, private, stamp)...)
	diags.Append(base.SetLocalSeen(ctx, private, nil)...)
	return diags
}

// write uploads the configured content and fills the computed attributes. It reaches envd
// through the sealed access in private (an update) or the client, and leaves there the access
// for the next update or the delete.
func (r *sandboxFileResource) write(ctx context.Context, m *sandboxFileModel, private base.PrivateState) (remoteFileStamp, diag.Diagnostics) {
	var diags diag.Diagnostics
	sandboxID := m.SandboxID.ValueString()
	c := contentFrom(m.Content, m.ContentBase64, m.Source)
	tag, err := c.knownSum(m.SHA256)
	if err != nil {
		diags.AddAttributeError(path.Root(c.attrName), "Cannot read file content", err.Error())
		return remoteFileStamp{}, diags
	}
	first, err := c.open()
	if err != nil {
		diags.AddAttributeError(path.Root(c.attrName), "Cannot read file content", err.Error())
		return remoteFileStamp{}, diags
	}
	defer func() {
		if first != nil {
			_ = first.Close()
		}
	}()
	// Each upload attempt reads the content from the start and hashes what it sent.
	var hr *hashingReader
	open := func() (io.ReadCloser, error) {
		src := first
		if first == nil {
			var err error
			if src, err = c.open(); err != nil {
				return nil, err
			}
		}
		first = nil
		hr = newHashingReader(src)
		return struct {
			io.Reader
			io.Closer
		}{hr, src}, nil
	}
	opts := e2b.WriteOptions{}
	if tag != "" {
		opts.Metadata = map[string]string{contentTagKey: tag}
	}
	var info *e2b.WriteInfo
	access, diags := r.withEnvd(ctx, private, sandboxID, m.User.ValueString(), "Could not write file", func(envd *e2b.Envd) error {
		var err error
		info, err = envd.WriteFileFrom(ctx, m.Path.ValueString(), open, opts)
		return err
	})
	if diags.HasError() {
		return remoteFileStamp{}, diags
	}
	sum := hr.sum()
	if planned := m.SHA256; !planned.IsUnknown() && planned.ValueString() != sum {
		diags.AddAttributeError(path.Root(c.attrName), "File content changed during apply",
			fmt.Sprintf("The %s changed between plan and apply (planned sha256 %s, written %s). "+
				"The sandbox now holds the new content; run the plan again.", c.attrName, planned.ValueString(), sum))
		return remoteFileStamp{}, diags
	}
	diags.Append(setSealedAccess(ctx, private, access)...)
	m.AbsolutePath = types.StringValue(info.Path)
	m.ID = types.StringValue(fileID(sandboxID, info.Path))
	m.SHA256 = types.StringValue(sum)
	m.Size = types.Int64Value(hr.n)
	return remoteFileStamp{Size: hr.n, SHA256: sum, Tagged: tag == sum && info.Metadata[contentTagKey] == sum}, diags
}

func (r *sandboxFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state sandboxFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Every path below keeps a valid identity, including those that cannot check the file.
	resp.Diagnostics.Append(resp.Identity.Set(ctx, state.identity())...)
	sandboxID := state.SandboxID.ValueString()
	envd, gone, diags := r.envdForRefresh(ctx, sandboxID, state.User.ValueString())
	resp.Diagnostics.Append(diags...)
	if gone {
		resp.State.RemoveResource(ctx)
		return
	}
	if envd == nil || resp.Diagnostics.HasError() {
		// Paused: nothing can be checked, keep what we know; a later delete or update looks
		// the sandbox up again rather than waking it through a stored access.
		resp.Diagnostics.Append(setSealedAccess(ctx, resp.Private, nil)...)
		return
	}

	target := state.AbsolutePath.ValueString()
	if target == "" {
		target = state.Path.ValueString()
	}
	// Just imported: no content in state yet.
	imported := state.imported()
	entry, err := envd.Stat(ctx, target)
	switch {
	case err == nil && entry.Type != e2b.FileTypeFile:
		what := "not a regular file"
		if entry.Type == e2b.FileTypeDir {
			what = "a directory"
		}
		resp.Diagnostics.Append(notARegularFile(target, fmt.Sprintf("sandbox %q", sandboxID), what, "e2b_sandbox_file",
			"inside the sandbox", imported))
		return
	case err == nil:
	case e2b.IsNotFound(err):
		resp.Diagnostics.AddWarning("File deleted in the sandbox",
			fmt.Sprintf("%s no longer exists in sandbox %q; the next apply writes it again.", target, sandboxID))
		resp.State.RemoveResource(ctx)
		return
	case e2b.IsSandboxNotRunning(err):
		resp.Diagnostics.AddWarning("Sandbox not reachable",
			fmt.Sprintf("Sandbox %q did not answer (paused or stopping), so %s was not checked for changes.", sandboxID, target))
		return
	default:
		resp.Diagnostics.Append(envdDiagnostic("Could not check file "+target, sandboxID, err))
		return
	}

	stamp, diags := getRemoteStamp(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	state.AbsolutePath = types.StringValue(entry.Path)
	state.ID = types.StringValue(fileID(sandboxID, entry.Path))
	client, _ := r.Data.Client() // known to work: envdForRefresh used it
	prevSealed, _ := getSealedAccess(ctx, resp.Private)
	resp.Diagnostics.Append(setSealedAccess(ctx, resp.Private, client.ResealEnvdAccess(sandboxID, prevSealed))...)
	switch {
	case stamp.matches(entry, state.SHA256.ValueString()) && stamp.Modified.IsZero():
		// First refresh after a write: from now on the modification time tells changes.
		stamp.Modified = entry.ModifiedTime
		resp.Diagnostics.Append(setRemoteStamp(ctx, resp.Private, *stamp)...)
	case stamp.matches(entry, state.SHA256.ValueString()):
	default:
		// Just imported: a small text file also gets its content from the same download, so a
		// configuration that sets the same content plans no change.
		newStamp, drifted := sizeDrift(stamp, entry.Size, entry.ModifiedTime)
		var text *string
		var diags diag.Diagnostics
		if !drifted {
			newStamp, text, diags = r.hashRemote(ctx, envd, sandboxID, entry, imported)
		}
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if stamp != nil {
			tflog.Info(ctx, "sandbox file changed since the last apply", map[string]any{"path": entry.Path})
		}
		state.applyHashed(newStamp, text)
		resp.Diagnostics.Append(setRemoteStamp(ctx, resp.Private, newStamp)...)
	}
	resp.Diagnostics.Append(base.SetLocalSeen(ctx, resp.Private, seeLocalFile(ctx, state.Source, state.SHA256))...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, state.identity())...)
}

// hashRemote downloads the file as a stream and hashes it (see hashFile).
func (r *sandboxFileResource) hashRemote(ctx context.Context, envd *e2b.Envd, sandboxID string, entry *e2b.EntryInfo, wantText bool) (remoteFileStamp, *string, diag.Diagnostics) {
	body, err := envd.ReadFile(ctx, entry.Path, e2b.ReadOptions{})
	if err != nil {
		return remoteFileStamp{}, nil, diag.Diagnostics{envdDiagnostic("Could not read file "+entry.Path, sandboxID, err)}
	}
	return hashFile(ctx, body, entry.Size, entry.ModifiedTime, wantText, "Could not read file "+entry.Path)
}

func (r *sandboxFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state sandboxFileModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	sandboxID, target := state.SandboxID.ValueString(), state.AbsolutePath.ValueString()
	// The access the last write or refresh sealed saves reading the sandbox first. When the
	// sandbox no longer answers through it, or no longer takes its token, the control plane says
	// whether it is gone or paused and gives the current access.
	if envd := sealedEnvd(ctx, client, req.Private, sandboxID, state.User.ValueString()); envd != nil {
		if err := envd.RemoveFile(ctx, target); !e2b.IsSandboxNotRunning(err) && !e2b.IsUnauthorized(err) {
			resp.Diagnostics.Append(removeFileDiagnostics(err, target, sandboxID)...)
			return
		}
	}
	envd, gone, diags := r.envdForRefresh(ctx, sandboxID, state.User.ValueString())
	if gone {
		return // The file went with its sandbox.
	}
	if envd == nil && !diags.HasError() {
		resp.Diagnostics.AddWarning("File left in paused sandbox",
			fmt.Sprintf("Sandbox %q is paused, so %s was not deleted from it; it was removed from state.",
				sandboxID, target))
		return
	}
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := envd.RemoveFile(ctx, target)
	if e2b.IsSandboxNotRunning(err) {
		return // It stopped between the lookup and the removal: the file went with it.
	}
	resp.Diagnostics.Append(removeFileDiagnostics(err, target, sandboxID)...)
}

// removeFileDiagnostics words the outcome of RemoveFile for Delete.
func removeFileDiagnostics(err error, target, sandboxID string) diag.Diagnostics {
	var diags diag.Diagnostics
	switch {
	case err == nil:
	case e2b.IsNotAFile(err):
		diags.AddWarning("File not deleted",
			fmt.Sprintf("%s in sandbox %q is not the file this resource wrote any more: %v. It was left in place "+
				"and removed from state; the provider deletes only regular files, never a directory.", target, sandboxID, err))
	default:
		diags.Append(envdDiagnostic("Could not delete file "+target, sandboxID, err))
	}
	return diags
}

// envdForRefresh is envd for Read and Delete: gone reports a sandbox that no
// longer exists (with a warning); a nil Envd without errors means paused.
func (r *sandboxFileResource) envdForRefresh(ctx context.Context, sandboxID, user string) (envd *e2b.Envd, gone bool, diags diag.Diagnostics) {
	client, diags := r.Data.Client()
	if diags.HasError() {
		return nil, false, diags
	}
	envd, err := client.SandboxEnvd(ctx, sandboxID, user)
	switch {
	case err == nil:
		return envd, false, diags
	case e2b.IsNotFound(err):
		diags.AddWarning("Sandbox no longer exists",
			fmt.Sprintf("Sandbox %q was not found (killed or expired), so its files were removed from state.", sandboxID))
		return nil, true, diags
	case errors.Is(err, e2b.ErrSandboxPaused):
		return nil, false, diags
	default:
		diags.Append(sandboxLookupDiagnostic("Could not reach sandbox "+sandboxID, sandboxID, err))
		return nil, false, diags
	}
}

// withEnvd runs call against the sandbox's envd: through the sealed access in private when
// there is one (no control-plane read), and through a lookup when there is none or the sandbox no
// longer answers through it (paused, gone, or its token changed). It returns the access to seal
// for next time.
func (r *sandboxFileResource) withEnvd(ctx context.Context, private base.PrivateState, sandboxID, user, summary string,
	call func(*e2b.Envd) error) ([]byte, diag.Diagnostics) {
	client, diags := r.Data.Client()
	if diags.HasError() {
		return nil, diags
	}
	if envd := sealedEnvd(ctx, client, private, sandboxID, user); envd != nil {
		err := call(envd)
		if err == nil {
			envd.KeepAccess() // A command run next in this sandbox needs no lookup either.
			sealed, _ := getSealedAccess(ctx, private)
			return sealed, diags
		}
		if !e2b.IsSandboxNotRunning(err) && !e2b.IsUnauthorized(err) {
			diags.Append(envdDiagnostic(summary, sandboxID, err))
			return nil, diags
		}
	}
	envd, err := client.SandboxEnvd(ctx, sandboxID, user)
	if err != nil {
		diags.Append(sandboxLookupDiagnostic(summary, sandboxID, err))
		return nil, diags
	}
	if err := call(envd); err != nil {
		diags.Append(envdDiagnostic(summary, sandboxID, err))
		return nil, diags
	}
	return client.SealedEnvdAccess(sandboxID), diags
}

func fileID(sandboxID, absPath string) string { return sandboxID + ":" + absPath }

func setRemoteStamp(ctx context.Context, p base.PrivateState, s remoteFileStamp) diag.Diagnostics {
	b, err := json.Marshal(s)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Internal error", "encoding private state: "+err.Error())
		return diags
	}
	return p.SetKey(ctx, remoteFileKey, b)
}

// sealedAccessKey names the private state holding the sandbox's envd access as the client sealed
// it (see e2b.Client.SealedEnvdAccess): encrypted, so the state never holds the token readable.
const sealedAccessKey = "envd_access"

// sealedEnvd opens the sealed access in private; nil when there is none or it cannot be opened.
func sealedEnvd(ctx context.Context, client *e2b.Client, p base.PrivateState, sandboxID, user string) *e2b.Envd {
	sealed, _ := getSealedAccess(ctx, p)
	if len(sealed) == 0 {
		return nil
	}
	envd, ok := client.EnvdFromSealed(sandboxID, user, sealed)
	if !ok {
		return nil
	}
	return envd
}

func getSealedAccess(ctx context.Context, p base.PrivateState) ([]byte, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, sealedAccessKey)
	var sealed []byte
	if len(b) == 0 || json.Unmarshal(b, &sealed) != nil {
		return nil, diags
	}
	return sealed, diags
}

// setSealedAccess stores sealed, or removes the key when sealed is empty.
func setSealedAccess(ctx context.Context, p base.PrivateState, sealed []byte) diag.Diagnostics {
	if len(sealed) == 0 {
		return p.SetKey(ctx, sealedAccessKey, nil)
	}
	b, _ := json.Marshal(sealed) // a byte slice always encodes (as base64)
	return p.SetKey(ctx, sealedAccessKey, b)
}

func getRemoteStamp(ctx context.Context, p base.PrivateState) (*remoteFileStamp, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, remoteFileKey)
	if diags.HasError() || len(b) == 0 {
		return nil, diags
	}
	var s remoteFileStamp
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, diags // Unreadable stamp: hash again.
	}
	return &s, diags
}
