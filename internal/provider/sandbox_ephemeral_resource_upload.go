package provider

import (
	"context"
	"fmt"
	"io"
	"os"
	pathpkg "path"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxUploadModel is one upload block of the ephemeral sandbox.
type sandboxUploadModel struct {
	Source      types.String `tfsdk:"source"`
	Content     types.String `tfsdk:"content"`
	Destination types.String `tfsdk:"destination"`
	Include     types.List   `tfsdk:"include"`
	Exclude     types.List   `tfsdk:"exclude"`
	User        types.String `tfsdk:"user"`
	SHA256      types.String `tfsdk:"sha256"`
}

var uploadObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"source":      types.StringType,
	"content":     types.StringType,
	"destination": types.StringType,
	"include":     types.ListType{ElemType: types.StringType},
	"exclude":     types.ListType{ElemType: types.StringType},
	"user":        types.StringType,
	"sha256":      types.StringType,
}}

// uploadBlock is the schema of the upload blocks.
func uploadBlock() schema.ListNestedBlock {
	oneSource := []validator.String{stringvalidator.ExactlyOneOf(
		path.MatchRelative().AtParent().AtName("source"), path.MatchRelative().AtParent().AtName("content"))}
	return schema.ListNestedBlock{
		MarkdownDescription: "Files to write into the sandbox when it opens, in the order given, before anything that " +
			"uses the sandbox runs: the way to give an ephemeral sandbox its code, since a managed " +
			"`e2b_sandbox_file` or `e2b_sandbox_folder` cannot keep an ephemeral sandbox's ID. Each block uploads a " +
			"local file or folder (`source`) or a text (`content`) to `destination`. A folder's files are sent many to a " +
			"request, streamed, never held in memory. " + descFolder.skipped + " If an upload fails, the sandbox is " +
			"killed and the open fails. Terraform opens ephemeral resources while planning too, so each run's " +
			"sandbox gets the files, the plan's included.",
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"source": schema.StringAttribute{
				MarkdownDescription: "Local file or folder to upload, relative to the directory Terraform runs in (prefer " +
					"`\"${path.module}/...\"`). Exactly one of `source` and `content` is required.",
				Optional:   true,
				Validators: append([]validator.String{uploadSourceValidator()}, oneSource...),
			},
			"content": schema.StringAttribute{
				MarkdownDescription: "Text to write to the file at `destination` (mode `0644`).",
				Optional:            true,
			},
			"destination": schema.StringAttribute{
				MarkdownDescription: "Absolute path in the sandbox: the file's path for a file or `content`, the directory " +
					"that receives the files for a folder (parent directories are created).",
				Required:   true,
				Validators: []validator.String{validators.NoControlChars(), folderDestinationValidator()},
			},
			"include": schema.ListAttribute{
				MarkdownDescription: "Only with a folder `source`. " + descFolder.include + " Patterns as in `exclude`.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          folderPatternValidators(),
			},
			"exclude": schema.ListAttribute{
				MarkdownDescription: "Only with a folder `source`. " + descFolder.exclude + " " + descFolder.patterns,
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          folderPatternValidators(),
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User who writes and owns the files. Defaults to the template's user (`user`).",
				Optional:            true,
				Validators:          []validator.String{validators.NoControlChars()},
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 (hex) of what was written: the content of a file, or for a folder " +
					"the digest `e2b_sandbox_folder` calls `sha256`. " + descFolder.digest,
				Computed: true,
			},
		}},
	}
}

// uploadSourceValidator checks, at plan time, that source names a local file or folder.
func uploadSourceValidator() validator.String {
	return validators.StringRule{Desc: "must be a local file or folder", Summary: "Upload source not usable", Check: func(p string) string {
		if msg := checkSourceFolder(p); msg == "" || strings.Contains(msg, "is a file") {
			return checkSourceIfFile(p)
		} else {
			return strings.Replace(msg, "local folder", "local file or folder", 1)
		}
	}}
}

// checkSourceIfFile is checkSourceFile for a path that is not a directory, "" for one.
func checkSourceIfFile(p string) string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return ""
	}
	return checkSourceFile(p)
}

// validateUploads checks what the attribute validators cannot: patterns only for a folder.
func validateUploads(ctx context.Context, list types.List, diags *diag.Diagnostics) {
	uploads, ok := uploadsOf(ctx, list, diags)
	if !ok {
		return
	}
	for i, u := range uploads {
		if u.Source.IsUnknown() || (u.Include.IsNull() && u.Exclude.IsNull()) {
			continue
		}
		isDir := false
		if !u.Source.IsNull() {
			st, err := os.Stat(u.Source.ValueString())
			isDir = err == nil && st.IsDir()
			if err != nil {
				continue // The source's own validator says what is wrong.
			}
		}
		if !isDir {
			attr := "include"
			if u.Include.IsNull() {
				attr = "exclude"
			}
			diags.AddAttributeError(path.Root("upload").AtListIndex(i).AtName(attr), "Patterns need a folder",
				fmt.Sprintf("%s selects files of a folder source; this upload writes a single file. Remove %s, or set "+
					"source to a folder.", attr, attr))
		}
	}
}

// uploadsOf reads the upload blocks; ok is false while they are not known.
func uploadsOf(ctx context.Context, list types.List, diags *diag.Diagnostics) ([]sandboxUploadModel, bool) {
	if list.IsNull() || list.IsUnknown() {
		return nil, false
	}
	var uploads []sandboxUploadModel
	diags.Append(list.ElementsAs(ctx, &uploads, false)...)
	return uploads, !diags.HasError()
}

// uploadAll writes every upload block into the sandbox, in order, and returns the blocks with
// their sha256 filled in.
func uploadAll(ctx context.Context, client *e2b.Client, sandboxID string, list types.List) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	uploads, ok := uploadsOf(ctx, list, &diags)
	if !ok {
		return list, diags
	}
	for i := range uploads {
		at := path.Root("upload").AtListIndex(i)
		sum, d := uploadOne(ctx, client, sandboxID, uploads[i], at)
		diags.Append(d...)
		if diags.HasError() {
			return list, diags
		}
		uploads[i].SHA256 = types.StringValue(sum)
	}
	out, d := types.ListValueFrom(ctx, uploadObjectType, uploads)
	diags.Append(d...)
	return out, diags
}

// uploadOne writes one upload block and returns its sha256.
func uploadOne(ctx context.Context, client *e2b.Client, sandboxID string, u sandboxUploadModel, at path.Path) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	dest := u.Destination.ValueString()
	summary := "Could not upload to " + dest
	envd, err := client.SandboxEnvd(ctx, sandboxID, u.User.ValueString())
	if err != nil {
		diags.Append(sandboxLookupDiagnostic(summary, sandboxID, err))
		return "", diags
	}
	if !u.Content.IsNull() {
		text := u.Content.ValueString()
		written, err := envd.WriteFiles(ctx, []e2b.UploadFile{{Path: dest, Size: int64(len(text)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}})
		if err != nil {
			diags.AddAttributeError(at.AtName("content"), summary, envdDiagnostic(summary, sandboxID, err).Detail())
			return "", diags
		}
		return written[0].SHA256, diags
	}

	source := u.Source.ValueString()
	st, err := os.Stat(source)
	if err != nil {
		diags.AddAttributeError(at.AtName("source"), "Cannot read upload source", err.Error())
		return "", diags
	}
	if !st.IsDir() {
		local := fileContent{source: source, attrName: "source"}
		written, err := envd.WriteFiles(ctx, []e2b.UploadFile{{Path: dest, Size: st.Size(), Open: local.open}})
		if err == nil {
			err = envd.Chmod(ctx, pathpkg.Dir(dest), map[string]uint32{pathpkg.Base(dest): e2b.UploadMode(st.Mode())})
		}
		if err != nil {
			diags.AddAttributeError(at.AtName("source"), summary, envdDiagnostic(summary, sandboxID, err).Detail())
			return "", diags
		}
		return written[0].SHA256, diags
	}

	folder, _, d := localFolderOf(ctx, u.Source, u.Include, u.Exclude)
	diags.Append(d...)
	files, d := scanFolder(ctx, folder, at.AtName("source"), false)
	diags.Append(d...)
	if diags.HasError() {
		return "", diags
	}
	uploads := make([]e2b.UploadFile, len(files))
	modes := make(map[string]uint32, len(files))
	for i, f := range files {
		rel := f.Path
		uploads[i] = e2b.UploadFile{Path: pathpkg.Join(dest, rel), Size: f.Size, Open: func() (io.ReadCloser, error) { return folder.Open(rel) }}
		modes[rel] = f.Mode
	}
	written, err := envd.WriteFiles(ctx, uploads)
	if err == nil {
		err = envd.Chmod(ctx, dest, modes)
	}
	if err != nil {
		diags.AddAttributeError(at.AtName("source"), summary, envdDiagnostic(summary, sandboxID, err).Detail())
		return "", diags
	}
	for i := range files {
		files[i].SHA256, files[i].Size = written[i].SHA256, written[i].Size
	}
	return e2b.FolderDigest(files), diags
}
