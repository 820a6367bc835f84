package provider

import (
	"context"
	"encoding/base64"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// sandboxFileModel maps e2b_sandbox_file.
type sandboxFileModel struct {
	ID            types.String `tfsdk:"id"`
	SandboxID     types.String `tfsdk:"sandbox_id"`
	Path          types.String `tfsdk:"path"`
	AbsolutePath  types.String `tfsdk:"absolute_path"`
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	Source        types.String `tfsdk:"source"`
	User          types.String `tfsdk:"user"`
	SHA256        types.String `tfsdk:"sha256"`
	Size          types.Int64  `tfsdk:"size"`
}

func (r *sandboxFileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A file inside a sandbox. Exactly one of `content`, `content_base64` or `source` gives its " +
			"bytes; changing them rewrites the file in place (parent directories are created). Changes made inside " +
			"the sandbox show up in the next plan: a file that was edited plans a rewrite (its `sha256` differs), " +
			"one that was deleted plans a re-create. To stay cheap for large files, refresh compares size and " +
			"modification time first and downloads the file to hash it only when one of them changed. When the " +
			"sandbox itself is gone the file leaves state with a warning. Import with `<sandbox_id>:<absolute path>` " +
			"or by identity; a text file of up to 1 MiB gets its `content` filled in, so a configuration with the " +
			"same content plans no change.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<sandbox_id>:<absolute_path>`.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox the file lives in. Changing it writes the file in the new sandbox.",
				Required:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{sandboxIDValidator()},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Where the file goes: absolute, `~/…`, or relative to the user's home directory. " +
					"The resolved path is `absolute_path` (and part of `id`). Pointing it at another file replaces the " +
					"resource (the old file is deleted); another spelling of the same path, such as `~/a.txt` for " +
					"`/home/user/a.txt`, changes nothing.",
				Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(filePathMoved,
					"Replaced when the path names another file.", "Replaced when the path names another file.")},
			},
			"absolute_path": schema.StringAttribute{
				MarkdownDescription: "The absolute path of the file, as the sandbox resolved `path`.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"content": schema.StringAttribute{
				MarkdownDescription: "Text content of the file (UTF-8). Conflicts with `content_base64` and `source`.",
				Optional:            true,
			},
			"content_base64": schema.StringAttribute{
				MarkdownDescription: "Binary content of the file, base64-encoded (e.g. `filebase64(...)`). " +
					"Conflicts with `content` and `source`.",
				Optional: true,
			},
			"source": schema.StringAttribute{
				MarkdownDescription: "Path of a local file to upload, relative to the directory Terraform runs in " +
					"(prefer `\"${path.module}/...\"`). The file is streamed, never held in memory, and hashed at plan " +
					"time, so editing it plans a rewrite. Conflicts with `content` and `content_base64`.",
				Optional: true,
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User who writes and owns the file; relative paths start in their home. " +
					"Defaults to the template's user (`user`, home `/home/user`). Changing it replaces the file.",
				Optional:      true,
				PlanModifiers: replace,
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 (hex) of the file's content. Known at plan time from the configuration; " +
					"after a refresh it is the hash of what the sandbox holds, so a difference means drift.",
				Computed: true,
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: "Size of the file in bytes.",
				Computed:            true,
			},
		},
	}
}

func (r *sandboxFileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m sandboxFileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var set []string
	anyUnknown := false
	for name, v := range map[string]types.String{"content": m.Content, "content_base64": m.ContentBase64, "source": m.Source} {
		if v.IsUnknown() {
			anyUnknown = true
		}
		if !v.IsNull() {
			set = append(set, name)
		}
	}
	switch {
	case len(set) > 1:
		resp.Diagnostics.AddError("Conflicting file contents",
			"Set exactly one of content, content_base64 or source; this configuration sets "+
				strings.Join(slices.Sorted(slices.Values(set)), " and ")+".")
	case len(set) == 0 && !anyUnknown:
		resp.Diagnostics.AddError("Missing file contents",
			"Set exactly one of content (text), content_base64 (binary, base64-encoded) or source (a local file).")
	}
	if v := m.ContentBase64; !v.IsNull() && !v.IsUnknown() {
		if _, err := base64.StdEncoding.DecodeString(v.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("content_base64"), "Invalid base64",
				"content_base64 must be standard base64 (as filebase64() or base64encode() return): "+err.Error())
		}
	}
	if v := m.Source; !v.IsNull() && !v.IsUnknown() {
		if err := checkSourceFile(v.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("source"), "Source file not usable", err.Error()+".")
		}
	}
	if v := m.Path; !v.IsNull() && !v.IsUnknown() {
		p := v.ValueString()
		if strings.TrimSpace(p) == "" || strings.HasSuffix(p, "/") || p == "~" {
			resp.Diagnostics.AddAttributeError(path.Root("path"), "Invalid file path",
				"path must name a file, such as \"/home/user/app/config.json\" or \"~/app/config.json\"; got "+strconv.Quote(p)+".")
		}
	}
}

func (r *sandboxFileResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"sandbox_id": identityschema.StringAttribute{
				Description:       "ID of the sandbox the file lives in.",
				RequiredForImport: true,
			},
			"path": identityschema.StringAttribute{
				Description:       "Absolute path of the file in the sandbox.",
				RequiredForImport: true,
			},
		},
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

// ModifyPlan computes sha256 and size from the configuration, hashing a local
// source file, so content changes (and edited source files) show in the plan.
func (r *sandboxFileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan sandboxFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c := contentFrom(plan.Content, plan.ContentBase64, plan.Source)
	if c.unknown || c.attrName == "" {
		plan.SHA256 = types.StringUnknown()
		plan.Size = types.Int64Unknown()
	} else {
		sum, size, err := c.digest()
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(c.attrName), "Cannot read file content", err.Error())
			return
		}
		plan.SHA256 = types.StringValue(sum)
		plan.Size = types.Int64Value(size)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}
