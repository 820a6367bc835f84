package provider

import (
	"context"
	"os"
	pathpkg "path"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxFolderModel maps e2b_sandbox_folder.
type sandboxFolderModel struct {
	ID          types.String `tfsdk:"id"`
	SandboxID   types.String `tfsdk:"sandbox_id"`
	Source      types.String `tfsdk:"source"`
	Destination types.String `tfsdk:"destination"`
	Include     types.List   `tfsdk:"include"`
	Exclude     types.List   `tfsdk:"exclude"`
	User        types.String `tfsdk:"user"`
	SHA256      types.String `tfsdk:"sha256"`
	Files       types.Map    `tfsdk:"files"`
}

// descFolder describe the inputs the folder resource and the ephemeral sandbox's upload block
// share.
var descFolder = struct {
	include, exclude, patterns, digest, skipped string
}{
	include: "Glob patterns, relative to the source folder; only the files one of them matches are uploaded. " +
		"Default: every file.",
	exclude: "Glob patterns, relative to the source folder; the files they match are left out, even when " +
		"`include` matches them.",
	patterns: "Patterns use the syntax of a template's `ignore` (`*`, `?`, `[abc]`, `{a,b}`, `**` for any " +
		"number of directories; dot files match) and a pattern that matches a directory stands for " +
		"everything in it: `exclude = [\".git\", \"node_modules\", \"**/__pycache__\"]`.",
	digest: "SHA-256 (hex) of the folder's listing: for each file in path order, its relative path, mode and content " +
		"SHA-256. Any change of a file's content, mode or name changes it, times and owners do not.",
	skipped: "Only regular files are uploaded, each with its permission bits; empty directories are not created. " +
		"A `source` that is a symbolic link to a folder uploads that folder. Inside it, as in a Docker build " +
		"context, a symbolic link is followed only to a file inside the folder (sent as a copy of that file: " +
		"envd cannot make links): a link whose target is outside the folder (`creds -> ~/.aws/credentials`, an " +
		"absolute target, `/proc/self/environ`) is never read, and files are opened through the folder, so one " +
		"swapped for such a link after the plan is not read either. " + e2b.FolderWorkingFilesNote + " are left " +
		"out unless an `include` pattern whose last part has no wildcard names them (`infra/terraform.tfstate`, " +
		"`infra/.terraform.lock.hcl`). Links out of the folder, working files, links " +
		"to directories, broken links, devices, pipes and names with control characters are left out with a " +
		"warning that names them; add them to `exclude` to silence it.",
}

func (r *sandboxFolderResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The files of a local folder, copied into a directory of a sandbox. The folder is " +
			"hashed at plan time (each file streamed, never held in memory), so an edited, added or removed file " +
			"plans an update that writes only the files that changed and removes those that left the folder. " +
			"Files are sent many to a request (envd's multipart upload), as streams. " + base.DescLocalEdit + " " + descFolder.skipped +
			"\n\nRefresh lists the directories that hold the files and downloads only those whose size or " +
			"modification time changed, so a file edited, re-moded or deleted inside the sandbox plans its " +
			"rewrite. The resource manages only the files it wrote: other files in the destination are never " +
			"touched. Destroy removes its files (`rm -f`, which never removes a directory) and then the " +
			"directories it created, if they are empty (`rmdir`). When the sandbox is gone the resource leaves " +
			"state with a warning.\n\nFor an ephemeral sandbox (`ephemeral \"e2b_sandbox\"`), whose ID a managed " +
			"resource cannot keep, use its `upload` block instead.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<sandbox_id>:<destination>`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox to copy the files into. Changing it copies them into the new sandbox.",
				Required:            true,
				PlanModifiers:       replace,
				Validators:          validators.SandboxID(),
			},
			"source": schema.StringAttribute{
				MarkdownDescription: "Local folder to upload, relative to the directory Terraform runs in (prefer " +
					"`\"${path.module}/...\"`). Pointing it at another folder updates the files in place.",
				Required:   true,
				Validators: []validator.String{sourceFolderValidator()},
			},
			"destination": schema.StringAttribute{
				MarkdownDescription: "Absolute path of the directory in the sandbox that receives the files (created with " +
					"its parents when missing), such as `/home/user/app`. Changing it replaces the resource.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{validators.NoControlChars(), folderDestinationValidator()},
			},
			"include": schema.ListAttribute{
				MarkdownDescription: descFolder.include + " Patterns as in `exclude`.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          folderPatternValidators(),
			},
			"exclude": schema.ListAttribute{
				MarkdownDescription: descFolder.exclude + " " + descFolder.patterns,
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          folderPatternValidators(),
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User who writes and owns the files (and runs `chmod`, `rm` and `rmdir` for them). " +
					"Defaults to the template's user (`user`). Changing it replaces the resource.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{validators.NoControlChars()},
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: descFolder.digest + " Known at plan time when updating (with `files`; a new folder's are known after apply, " +
					"read as the files are sent); after a refresh it describes what the sandbox " +
					"holds, so a difference means drift. Use it in `triggers` to re-run a command when the folder changes.",
				Computed: true,
			},
			"files": schema.MapNestedAttribute{
				MarkdownDescription: "The files, by path relative to `destination`: the plan shows which ones change.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"sha256": schema.StringAttribute{MarkdownDescription: "SHA-256 (hex) of the file's content.", Computed: true},
					"size":   schema.Int64Attribute{MarkdownDescription: "Size in bytes.", Computed: true},
					"mode":   schema.StringAttribute{MarkdownDescription: "Permission bits in octal, such as `0755`.", Computed: true},
				}},
			},
		},
	}
}

// folderPatternValidators check include and exclude patterns at plan time.
func folderPatternValidators() []validator.List {
	return []validator.List{listvalidator.ValueStringsAre(validators.StringRule{
		Desc: "must be a glob pattern relative to the source folder", Summary: "Invalid pattern",
		Check: func(p string) string {
			if err := e2b.ValidateFolderPattern(p); err != nil {
				return "must be a glob pattern relative to the source folder (" + err.Error() + ")"
			}
			return ""
		},
	})}
}

// folderDestinationValidator accepts a clean absolute path other than "/".
func folderDestinationValidator() validator.String {
	return validators.StringRule{Desc: "must be an absolute directory path", Summary: "Invalid destination", Check: checkFolderDestination}
}

func checkFolderDestination(p string) string {
	switch {
	case !pathpkg.IsAbs(p):
		return `must be an absolute path in the sandbox, such as "/home/user/app"`
	case pathpkg.Clean(p) == "/":
		return `must name a directory below "/", such as "/home/user/app"`
	case pathpkg.Clean(p) != p:
		return "must be written in its clean form (" + pathpkg.Clean(p) + "), without \".\", \"..\", repeated or trailing slashes"
	}
	return ""
}

// sourceFolderValidator checks, at plan time, that source names a local directory.
func sourceFolderValidator() validator.String {
	return validators.StringRule{Desc: "must be a local directory", Summary: "Source folder not usable", Check: checkSourceFolder}
}

func checkSourceFolder(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		hint := ""
		if !filepath.IsAbs(p) {
			if wd, wdErr := os.Getwd(); wdErr == nil {
				hint = " (relative paths start in " + wd + ", the directory Terraform runs in; " +
					"use \"${path.module}/...\" for folders next to the configuration)"
			}
		}
		if os.IsNotExist(err) {
			return "must name an existing local folder, but " + p + " does not exist" + hint
		}
		return "must name a readable local folder" + hint + " (" + err.Error() + ")"
	}
	if !st.IsDir() {
		return "must be a folder, but " + p + " is a file (upload a single file with e2b_sandbox_file)"
	}
	return ""
}
