package provider

import (
	"context"
	"maps"
	pathpkg "path"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxFileModel maps e2b_sandbox_file.
type sandboxFileModel struct {
	fileContentModel
	ID           types.String `tfsdk:"id"`
	SandboxID    types.String `tfsdk:"sandbox_id"`
	Path         types.String `tfsdk:"path"`
	AbsolutePath types.String `tfsdk:"absolute_path"`
	User         types.String `tfsdk:"user"`
}

func (r *sandboxFileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	attrs := fileContentAttributes("sandbox")
	maps.Copy(attrs, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<sandbox_id>:<absolute_path>`.",
			Computed:            true,
			PlanModifiers:       stable,
		},
		"sandbox_id": schema.StringAttribute{
			MarkdownDescription: "ID of the sandbox the file lives in. Changing it writes the file in the new sandbox.",
			Required:            true,
			PlanModifiers:       replace,
			Validators:          validators.SandboxID(),
		},
		"path": schema.StringAttribute{
			MarkdownDescription: "Where the file goes: absolute, `~/…`, or relative to the user's home directory. " +
				"The resolved path is `absolute_path` (and part of `id`). Pointing it at another file replaces the " +
				"resource (the old file is deleted); another spelling of the same path, such as `~/a.txt` for " +
				"`/home/user/a.txt`, changes nothing.",
			Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(filePathMoved,
				"Replaced when the path names another file.", "Replaced when the path names another file.")},
			Validators: []validator.String{validators.NoControlChars(), validators.FilePath()},
		},
		"absolute_path": schema.StringAttribute{
			MarkdownDescription: "The absolute path of the file, as the sandbox resolved `path`.",
			Computed:            true,
			PlanModifiers:       stable,
		},
		"user": schema.StringAttribute{
			MarkdownDescription: "User who writes and owns the file; relative paths start in their home. " +
				"Defaults to the template's user (`user`, home `/home/user`). Changing it replaces the file.",
			Optional:      true,
			PlanModifiers: replace,
			Validators:    []validator.String{validators.NoControlChars()},
		},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A file inside a sandbox. Exactly one of `content`, `content_base64` or `source` gives its " +
			"bytes; changing them rewrites the file in place (parent directories are created). Changes made inside " +
			"the sandbox show up in the next plan: a file that was edited plans a rewrite (its `sha256` differs), " +
			"one that was deleted plans a re-create. To stay cheap for large files, refresh compares size and " +
			"modification time first and downloads the file to hash it only when one of them changed; a write " +
			"tags the file with its sha256 as file metadata (`terraform-sha256`, envd 0.6.2+), which lets the " +
			"first refresh after it recognise the file without a download (so an edit made in place before that " +
			"refresh, keeping the size, goes unnoticed, as does a file replaced by one of the same size carrying the same " +
			"tag, which only a workload that means to hide the change writes). When the " +
			"sandbox itself is gone the file leaves state with a warning. It only ever manages a regular file: a path " +
			"that became a directory fails the refresh (nothing is written over or deleted), and destroy never " +
			"removes a directory (it runs `rm -f` in the file's directory, which cannot remove one). Import a regular file with `<sandbox_id>:<absolute path>` " +
			"or by identity; a text file of up to 1 MiB gets its `content` filled in, so a configuration with the " +
			"same content plans no change. For a whole folder use `e2b_sandbox_folder`; for an ephemeral sandbox, " +
			"whose ID no managed resource can keep, the `upload` block of `ephemeral \"e2b_sandbox\"`.",
		Attributes: attrs,
	}
}

// filePathMoved replaces the file unless the new path is another spelling of
// the same absolute path (e.g. "~/a.txt" for "/home/user/a.txt").
func filePathMoved(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	var abs, user types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("absolute_path"), &abs)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("user"), &user)...)
	resp.RequiresReplace = req.PlanValue.IsUnknown() || abs.IsNull() ||
		resolveSandboxPath(req.PlanValue.ValueString(), user.ValueString()) != abs.ValueString()
}

// resolveSandboxPath resolves a path the way envd does for the standard
// templates: "~" and relative paths start in the user's home.
func resolveSandboxPath(p, user string) string {
	home := "/home/user"
	switch user {
	case "":
	case "root":
		home = "/root"
	default:
		home = "/home/" + user
	}
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	case !strings.HasPrefix(p, "/"):
		p = home + "/" + p
	}
	return pathpkg.Clean(p)
}
