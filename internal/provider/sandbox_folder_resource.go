package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	pathpkg "path"
	"slices"
	"strings"

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
	_ resource.ResourceWithConfigure   = &sandboxFolderResource{}
	_ resource.ResourceWithImportState = &sandboxFolderResource{}
	_ resource.ResourceWithIdentity    = &sandboxFolderResource{}
	_ resource.ResourceWithModifyPlan  = &sandboxFolderResource{}
)

// NewSandboxFolderResource returns the e2b_sandbox_folder resource.
func NewSandboxFolderResource() resource.Resource {
	return &sandboxFolderResource{base.OwnedPathResource{ResourceConfig: base.ResourceConfig{TypeName: "_sandbox_folder"}, Named: sandboxFolderPath}}
}

type sandboxFolderResource struct {
	base.OwnedPathResource
}

// sandboxFolderPath names a sandbox folder: its import ID and identity.
var sandboxFolderPath = base.OwnedPath{
	Owner: "sandbox_id", OwnerDesc: "ID of the sandbox the files live in.",
	Path: "destination", PathDesc: "Absolute path of the directory that holds the files.",
	Example: "i1a2b3c4:/home/user/app", CheckOwner: validators.CheckSandboxID,
	CheckPath: []func(string) string{validators.CheckNoControlChars, checkFolderDestination}, ID: fileID,
}

// sandboxFolderIdentity is the resource identity: the sandbox and the destination directory.
type sandboxFolderIdentity struct {
	SandboxID   types.String `tfsdk:"sandbox_id"`
	Destination types.String `tfsdk:"destination"`
}

func (m *sandboxFolderModel) identity() sandboxFolderIdentity {
	return sandboxFolderIdentity{SandboxID: m.SandboxID, Destination: m.Destination}
}

func (r *sandboxFolderResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(r.apply(ctx, req.Plan, nil, &resp.State, resp.Identity, resp.Private)...)
}

// Update writes the files that changed, sets modes, and removes the files that left the folder.
func (r *sandboxFolderResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(r.apply(ctx, req.Plan, &req.State, &resp.State, resp.Identity, resp.Private)...)
}

// folderSync is one apply's work and what it has done so far.
type folderSync struct {
	dest    string
	folder  e2b.LocalFolder
	want    []e2b.FolderFile
	verify  bool                      // want holds the planned hashes, which the upload must match
	have    map[string]e2b.FolderFile // what the sandbox holds of the resource's files
	stamps  map[string]folderStamp
	created []string // directories the resource created
	changed []string // files whose content differed from the plan when sent
	kept    []string // files not removed because they are no longer regular files
}

// apply makes the sandbox hold the planned files. It records what it did also when it fails
// halfway, so that nothing it wrote is forgotten.
func (r *sandboxFolderResource) apply(ctx context.Context, plan tfsdk.Plan, prior *tfsdk.State, state *tfsdk.State,
	identity *tfsdk.ResourceIdentity, private base.PrivateState) diag.Diagnostics {
	var m, old sandboxFolderModel
	diags := plan.Get(ctx, &m)
	if prior != nil {
		diags.Append(prior.Get(ctx, &old)...)
	}
	if diags.HasError() {
		return diags
	}
	client, d := r.Data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return diags
	}
	sandboxID, dest := m.SandboxID.ValueString(), m.Destination.ValueString()
	folder, _, d := localFolderOf(ctx, m.Source, m.Include, m.Exclude)
	diags.Append(d...)
	s := &folderSync{dest: dest, folder: folder, have: map[string]e2b.FolderFile{}, stamps: getFolderStamps(ctx, private),
		created: getFolderDirs(ctx, private)}
	if prior != nil {
		files, d := folderFilesFrom(ctx, old.Files)
		diags.Append(d...)
		for _, f := range files {
			s.have[f.Path] = f
		}
	}
	if !m.Files.IsUnknown() {
		s.want, d = folderFilesFrom(ctx, m.Files)
		s.verify = true
	} else {
		// Not known at plan time: what the folder holds now, hashed as it is sent.
		s.want, d = scanFolder(ctx, folder, path.Root("source"), false)
	}
	diags.Append(d...)
	if diags.HasError() {
		return diags
	}

	envd, err := folderEnvd(ctx, client, private, sandboxID, m.User.ValueString(), dest)
	if err != nil {
		diags.Append(sandboxLookupDiagnostic("Could not upload folder to "+dest, sandboxID, err))
		return diags
	}
	err = s.run(ctx, envd)
	m.ID = types.StringValue(fileID(sandboxID, dest))
	if err != nil || len(s.changed) > 0 || !s.verify {
		// What the sandbox holds now; after a planned apply that worked, it is the plan.
		m.setFolderFiles(slices.Collect(maps.Values(s.have)))
	}
	if err != nil || len(s.changed) > 0 {
		if err != nil {
			diags.Append(envdDiagnostic("Could not upload folder to "+dest, sandboxID, err))
		}
		if len(s.changed) > 0 {
			diags.AddAttributeError(path.Root("source"), "Folder changed during apply",
				fmt.Sprintf("These files of %s changed between plan and apply: %s. The sandbox holds the new content; "+
					"run the plan again.", folder.Dir, strings.Join(s.changed, ", ")))
		}
		if prior == nil && len(s.have) == 0 && len(s.created) == 0 {
			return diags // Nothing was written: nothing to record.
		}
		// What the sandbox holds now is recorded: Terraform keeps it (a new resource as tainted).
	}
	diags.Append(state.Set(ctx, &m)...)
	diags.Append(identity.Set(ctx, m.identity())...)
	diags.Append(setFolderStamps(ctx, private, s.stamps)...)
	diags.Append(setFolderDirs(ctx, private, s.created)...)
	diags.Append(base.SetLocalSeen(ctx, private, nil)...)
	diags.Append(setSealedAccess(ctx, private, client.ResealEnvdAccess(sandboxID, sealedOf(ctx, private)))...)
	if len(s.kept) > 0 {
		diags.AddWarning("Some files were not removed",
			fmt.Sprintf("These paths under %s are no longer regular files, so they were left in place: %s.",
				dest, strings.Join(s.kept, ", ")))
	}
	return diags
}

// run does the work: directories to note, files to write, modes to set, files and empty
// directories to remove, and the stamps of what it wrote.
func (s *folderSync) run(ctx context.Context, envd *e2b.Envd) error {
	wanted := map[string]e2b.FolderFile{}
	var write []e2b.FolderFile
	modes := map[string]uint32{}
	for _, f := range s.want {
		wanted[f.Path] = f
		h, ok := s.have[f.Path]
		switch {
		case !ok || h.SHA256 != f.SHA256 || !s.verify:
			write = append(write, f)
			modes[f.Path] = f.Mode
		case h.Mode != f.Mode:
			modes[f.Path] = f.Mode
		}
	}
	var remove []string
	for p := range s.have {
		if _, ok := wanted[p]; !ok {
			remove = append(remove, p)
		}
	}

	// The directories that do not exist before the first write are the resource's own.
	if err := s.noteNewDirs(ctx, envd, write); err != nil {
		return err
	}
	if err := s.write(ctx, envd, write); err != nil {
		return err
	}
	if err := envd.Chmod(ctx, s.dest, modes); err != nil {
		return err
	}
	for p, m := range modes {
		if f, ok := s.have[p]; ok {
			f.Mode = m
			s.have[p] = f
		}
	}
	if len(remove) > 0 {
		kept, err := envd.RemoveFiles(ctx, s.dest, remove)
		for _, p := range remove {
			if !slices.Contains(kept, p) && err == nil {
				delete(s.have, p)
				delete(s.stamps, p)
			}
		}
		if err != nil {
			return err
		}
		s.kept = kept
		for _, p := range kept {
			delete(s.have, p) // Not the resource's file any more.
			delete(s.stamps, p)
		}
	}
	return s.removeEmptyDirs(ctx, envd)
}

// noteNewDirs adds to s.created the directories that the files to write need and that do not
// exist yet.
func (s *folderSync) noteNewDirs(ctx context.Context, envd *e2b.Envd, write []e2b.FolderFile) error {
	if len(write) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, d := range e2b.DirsOf(slices.Collect(maps.Keys(s.have))) {
		if len(s.have) > 0 {
			known[d] = true // They held the resource's files already.
		}
	}
	var need []string
	for _, d := range e2b.DirsOf(pathsOf(write)) {
		if !known[d] && !slices.Contains(s.created, d) {
			need = append(need, d)
		}
	}
	missing, err := envd.MissingDirs(ctx, s.dest, need)
	if err != nil {
		return err
	}
	s.created = append(s.created, missing...)
	return nil
}

// write uploads files and records each one written, with the stamp it has in the sandbox.
func (s *folderSync) write(ctx context.Context, envd *e2b.Envd, files []e2b.FolderFile) error {
	if len(files) == 0 {
		return nil
	}
	uploads := make([]e2b.UploadFile, len(files))
	for i, f := range files {
		rel := f.Path
		uploads[i] = e2b.UploadFile{Path: pathpkg.Join(s.dest, rel), Size: f.Size,
			Open: func() (io.ReadCloser, error) { return s.folder.Open(rel) }}
	}
	written, err := envd.WriteFiles(ctx, uploads)
	for i, w := range written {
		f := files[i]
		if s.verify && w.SHA256 != f.SHA256 {
			s.changed = append(s.changed, f.Path)
		}
		s.have[f.Path] = e2b.FolderFile{Path: f.Path, Size: w.Size, Mode: 0, SHA256: w.SHA256}
		s.stamps[f.Path] = folderStamp{Size: w.Size, SHA256: w.SHA256}
	}
	if err != nil {
		return err
	}
	// One listing per directory gives the modification times a refresh compares with.
	listed, err := envd.StatFolder(ctx, s.dest, pathsOf(files))
	if err != nil {
		return err
	}
	for i, f := range files {
		st := s.stamps[f.Path]
		if l, ok := listed[f.Path]; ok && l.Size == written[i].Size {
			st.Modified = l.Modified // Else left unknown: the next refresh hashes the file.
		}
		s.stamps[f.Path] = st
	}
	return nil
}

// removeEmptyDirs removes the created directories that no longer hold any of the files.
func (s *folderSync) removeEmptyDirs(ctx context.Context, envd *e2b.Envd) error {
	inUse := map[string]bool{}
	for _, d := range e2b.DirsOf(slices.Collect(maps.Keys(s.have))) {
		if len(s.have) > 0 {
			inUse[d] = true
		}
	}
	var unused, still []string
	for _, d := range s.created {
		if inUse[d] {
			still = append(still, d)
		} else {
			unused = append(unused, d)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	s.created = still // Those left behind held something else: no longer the resource's.
	return envd.RemoveEmptyDirs(ctx, s.dest, unused)
}

func pathsOf(files []e2b.FolderFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// folderEnvd returns envd for the sandbox: through the sealed access in private when the
// sandbox still answers through it (a Stat of dest tells), else through a lookup, whose error
// it returns (IsNotFound: gone; e2b.ErrSandboxPaused: paused).
func folderEnvd(ctx context.Context, client *e2b.Client, private base.PrivateState, sandboxID, user, dest string) (*e2b.Envd, error) {
	if envd := sealedEnvd(ctx, client, private, sandboxID, user); envd != nil {
		_, err := envd.Stat(ctx, dest)
		if err == nil || e2b.IsNotFound(err) {
			envd.KeepAccess()
			return envd, nil
		}
		if !e2b.IsSandboxNotRunning(err) && !e2b.IsUnauthorized(err) {
			return nil, err
		}
	}
	return client.SandboxEnvd(ctx, sandboxID, user)
}

func sealedOf(ctx context.Context, p base.PrivateState) []byte {
	sealed, _ := getSealedAccess(ctx, p)
	return sealed
}

func (r *sandboxFolderResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m sandboxFolderModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &m, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.Identity.Set(ctx, m.identity())...)
	sandboxID, dest := m.SandboxID.ValueString(), m.Destination.ValueString()
	envd, err := folderEnvd(ctx, client, req.Private, sandboxID, m.User.ValueString(), dest)
	switch {
	case e2b.IsNotFound(err):
		resp.Diagnostics.AddWarning("Sandbox no longer exists",
			fmt.Sprintf("Sandbox %q was not found (killed or expired), so the folder %s was removed from state.", sandboxID, dest))
		resp.State.RemoveResource(ctx)
		return
	case errors.Is(err, e2b.ErrSandboxPaused):
		// Nothing can be checked: keep what is known; a later apply looks the sandbox up again.
		resp.Diagnostics.Append(setSealedAccess(ctx, resp.Private, nil)...)
		return
	case err != nil:
		resp.Diagnostics.Append(sandboxLookupDiagnostic("Could not reach sandbox "+sandboxID, sandboxID, err))
		return
	}

	imported := m.Files.IsNull()
	known := map[string]e2b.RemoteFile{}
	if imported {
		known, err = envd.ListFolderFiles(ctx, dest)
		if e2b.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("destination"), "Cannot import "+dest,
				fmt.Sprintf("%s does not exist in sandbox %q.", dest, sandboxID))
			return
		}
	} else {
		files, d := folderFilesFrom(ctx, m.Files)
		resp.Diagnostics.Append(d...)
		stamps := getFolderStamps(ctx, req.Private)
		for _, f := range files {
			st, ok := stamps[f.Path]
			if !ok || st.SHA256 != f.SHA256 {
				// Hash it again, unless its size already differs from the one the state's hash is of.
				st = folderStamp{Size: f.Size, SHA256: f.SHA256}
			}
			known[f.Path] = e2b.RemoteFile{Size: st.Size, Modified: st.Modified, SHA256: st.SHA256, Unread: st.Unread}
		}
	}
	var rep *e2b.FolderReport
	if err == nil {
		rep, err = envd.CheckFolder(ctx, dest, known)
	}
	switch {
	case e2b.IsSandboxNotRunning(err):
		resp.Diagnostics.AddWarning("Sandbox not reachable",
			fmt.Sprintf("Sandbox %q did not answer (paused or stopping), so %s was not checked for changes.", sandboxID, dest))
		return
	case err != nil:
		resp.Diagnostics.Append(envdDiagnostic("Could not check folder "+dest, sandboxID, err))
		return
	}
	if len(rep.Hashed) > 0 && !imported {
		tflog.Info(ctx, "sandbox folder files changed since the last apply", map[string]any{"destination": dest, "files": rep.Hashed})
	}
	if len(rep.NotFiles) > 0 {
		resp.Diagnostics.AddWarning("Files replaced in the sandbox",
			fmt.Sprintf("These paths under %s in sandbox %q are no longer regular files: %s. The provider never removes "+
				"them; move them away inside the sandbox before the next apply, which writes the files there again.", dest, sandboxID,
				strings.Join(rep.NotFiles, ", ")))
	}
	files := make([]e2b.FolderFile, 0, len(rep.Files))
	stamps := make(map[string]folderStamp, len(rep.Files))
	for p, f := range rep.Files {
		files = append(files, e2b.FolderFile{Path: p, Size: f.Size, Mode: f.Mode, SHA256: f.SHA256})
		stamps[p] = folderStamp{Size: f.Size, Modified: f.Modified, SHA256: f.SHA256, Unread: f.Unread}
	}
	m.setFolderFiles(files)
	m.ID = types.StringValue(fileID(sandboxID, dest))
	resp.Diagnostics.Append(base.SetLocalSeen(ctx, resp.Private, seeLocalFolder(ctx, m))...)
	resp.Diagnostics.Append(setFolderStamps(ctx, resp.Private, stamps)...)
	resp.Diagnostics.Append(setSealedAccess(ctx, resp.Private, client.ResealEnvdAccess(sandboxID, sealedOf(ctx, req.Private)))...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *sandboxFolderResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m sandboxFolderModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &m, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	sandboxID, dest := m.SandboxID.ValueString(), m.Destination.ValueString()
	envd, err := folderEnvd(ctx, client, req.Private, sandboxID, m.User.ValueString(), dest)
	switch {
	case e2b.IsNotFound(err):
		return // The files went with their sandbox.
	case errors.Is(err, e2b.ErrSandboxPaused):
		resp.Diagnostics.AddWarning("Folder left in paused sandbox",
			fmt.Sprintf("Sandbox %q is paused, so the files under %s were not deleted from it; they were removed from state.",
				sandboxID, dest))
		return
	case err != nil:
		resp.Diagnostics.Append(sandboxLookupDiagnostic("Could not delete folder "+dest, sandboxID, err))
		return
	}
	files, d := folderFilesFrom(ctx, m.Files)
	resp.Diagnostics.Append(d...)
	kept, err := envd.RemoveFiles(ctx, dest, pathsOf(files))
	if e2b.IsSandboxNotRunning(err) {
		return // It stopped meanwhile: the files went with it.
	}
	if err != nil {
		resp.Diagnostics.Append(envdDiagnostic("Could not delete folder "+dest, sandboxID, err))
		return
	}
	if len(kept) > 0 {
		resp.Diagnostics.AddWarning("Some files were not deleted",
			fmt.Sprintf("These paths under %s in sandbox %q are no longer regular files, so they were left in place: %s.",
				dest, sandboxID, strings.Join(kept, ", ")))
	}
	if err := envd.RemoveEmptyDirs(ctx, dest, getFolderDirs(ctx, req.Private)); err != nil {
		resp.Diagnostics.AddWarning("Directories left in the sandbox",
			fmt.Sprintf("The files under %s were deleted, but the empty directories the resource created could not be "+
				"removed (rmdir did not run: %v).", dest, err))
	}
}

// seeLocalFolder is what the refresh records of the local folder while it differs from what the
// sandbox holds (see base/local_seen.go); nil when they agree or the folder cannot be read (the plan
// says why).
func seeLocalFolder(ctx context.Context, m sandboxFolderModel) *base.LocalSeen {
	folder, known, diags := localFolderOf(ctx, m.Source, m.Include, m.Exclude)
	if !known || diags.HasError() || m.Source.IsNull() {
		return nil
	}
	files, _, err := folder.Scan(ctx)
	if err != nil || e2b.FolderDigest(files) == m.SHA256.ValueString() {
		return nil
	}
	return &base.LocalSeen{Source: folder.Dir, Include: folder.Include, Exclude: folder.Exclude, Files: base.SeenFolderFiles(files)}
}
