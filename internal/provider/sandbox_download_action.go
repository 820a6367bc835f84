package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ action.ActionWithConfigure        = &sandboxDownloadAction{}
	_ action.ActionWithConfigValidators = &sandboxDownloadAction{}
)

// Values of the download action's kind.
const (
	downloadKindFile   = "file"
	downloadKindFolder = "folder"
)

var downloadActionTimeout = sandboxActionTimeout{def: 30 * time.Minute, min: 10 * time.Second, max: 24 * time.Hour}

// downloadProgressEvery is how many files may come down between two progress messages.
const downloadProgressEvery = 100

// downloadDefaultMaxBytes bounds a download that sets no max_bytes: far above test reports and
// build artefacts, far below what fills a runner's disk.
const downloadDefaultMaxBytes = 4 << 30

// NewSandboxDownloadAction returns the e2b_sandbox_download action.
func NewSandboxDownloadAction() action.Action {
	return &sandboxDownloadAction{sandboxActionConfig{base.ActionConfig{TypeName: "_sandbox_download"}}}
}

// sandboxDownloadAction copies a file or folder out of a sandbox into a local folder.
type sandboxDownloadAction struct {
	sandboxActionConfig
}

type sandboxDownloadActionModel struct {
	sandboxActionModel
	Path        types.String `tfsdk:"path"`
	Destination types.String `tfsdk:"destination"`
	User        types.String `tfsdk:"user"`
	Kind        types.String `tfsdk:"kind"`
	IfExists    types.String `tfsdk:"if_exists"`
	MaxBytes    types.Int64  `tfsdk:"max_bytes"`
}

func (a *sandboxDownloadAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("copy from", downloadActionTimeout)
	attrs["path"] = schema.StringAttribute{
		MarkdownDescription: "Absolute path of a file or folder in the sandbox, such as `\"/home/user/app/reports\"`. " +
			"A link is refused: name its target.",
		Required: true,
		Validators: []validator.String{validators.NoControlChars(), stringvalidator.RegexMatches(validators.AbsolutePathPattern,
			"must be an absolute path in the sandbox, such as \"/home/user/reports\"")},
	}
	attrs["destination"] = schema.StringAttribute{
		MarkdownDescription: "Local folder to copy into, created when missing (relative paths are relative to the " +
			"directory Terraform runs in, e.g. `\"${path.root}/reports\"`). A file lands as `<destination>/<its name>`, " +
			"a folder's content as the destination's content; `if_exists` says what happens to what is already there. " +
			"A destination that is a file, that is or holds the folder Terraform runs in, or that lies in a `.terraform` " +
			"or `terraform.d` folder is refused.",
		Required: true, Validators: []validator.String{validators.NoControlChars(), stringvalidator.LengthAtLeast(1)},
	}
	attrs["user"] = schema.StringAttribute{
		MarkdownDescription: "User to read the files as, e.g. `root`. Defaults to the template's user (`user`).",
		Optional:            true, Validators: []validator.String{validators.NoControlChars()},
	}
	attrs["kind"] = schema.StringAttribute{
		MarkdownDescription: "What `path` must be: `\"file\"` or `\"folder\"`. A sandbox can swap a file for a folder " +
			"(or the other way) before the download: with `kind` set that fails the action, nothing written. " +
			"Unset, either is downloaded.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(downloadKindFile, downloadKindFolder)},
	}
	attrs["if_exists"] = schema.StringAttribute{
		MarkdownDescription: "What to do when the destination already holds something: `\"fail\"` (the default) " +
			"refuses a file download whose file is there and a folder download into a folder that is not empty, writing " +
			"nothing; `\"merge\"` replaces the files the sandbox has and leaves the others alone; `\"replace\"` empties " +
			"the destination folder first (a folder download) or replaces the file (a file download).",
		Optional: true,
		Validators: []validator.String{stringvalidator.OneOf(e2b.DownloadIfExistsFail, e2b.DownloadIfExistsMerge,
			e2b.DownloadIfExistsReplace)},
	}
	attrs["max_bytes"] = schema.Int64Attribute{
		MarkdownDescription: fmt.Sprintf("Most bytes the download may write, all files together, e.g. `1073741824` "+
			"(1 GiB). Defaults to `%d` (4 GiB). A file whose size would take the download past it, or past the local "+
			"disk's free space, fails the action before any of it is written.", downloadDefaultMaxBytes),
		Optional:   true,
		Validators: []validator.Int64{int64validator.AtLeast(1)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Copies a file or a folder out of a running sandbox into a local folder: test reports " +
			"and build artefacts after a run, or a sandbox's work before a destroy (`before_destroy`, Terraform 1.16+). " +
			"Files stream to disk (memory stays bounded whatever their size). It never writes outside `destination`: " +
			"links in the sandbox are not followed (they are skipped and listed in the output), and a local link in " +
			"`destination` where a file or folder would go fails the action instead of being written through. It never " +
			"writes " + tfworking.Note + " nor " + tfworking.ConfigurationNote + ": such a file as `path` fails the " +
			"action, such entries of a folder are skipped and listed. Pipes, devices and sockets are never read. " +
			"Names the sandbox chose are printed with control characters escaped. " +
			"Needs Terraform 1.14 or later.",
		Attributes: attrs,
	}
}

func (a *sandboxDownloadAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m sandboxDownloadActionModel
	ctx, cancel, client := a.begin(ctx, req, resp, &m, &m.sandboxActionModel, downloadActionTimeout)
	defer cancel()
	if client == nil {
		return
	}
	id, remote, dest := m.sandboxID(), m.Path.ValueString(), m.Destination.ValueString()
	envd, err := client.SandboxEnvd(ctx, id, m.User.ValueString())
	if err != nil {
		resp.Diagnostics.Append(sandboxLookupDiagnostic("Could not download from sandbox "+id, id, err))
		return
	}
	// The provider runs in the folder Terraform runs in: the root module's.
	protect, err := os.Getwd()
	if err != nil {
		resp.Diagnostics.AddError("Could not download from sandbox "+id, "The folder Terraform runs in is unknown: "+err.Error())
		return
	}
	kind := map[string]string{downloadKindFile: e2b.FileTypeFile, downloadKindFolder: e2b.FileTypeDir}[m.Kind.ValueString()]
	maxBytes := int64(downloadDefaultMaxBytes)
	if !m.MaxBytes.IsNull() {
		maxBytes = m.MaxBytes.ValueInt64()
	}
	sendProgress(resp, "Copying %s from sandbox %s into %s…", remote, id, dest)
	files := 0
	res, err := envd.Download(ctx, remote, dest, e2b.DownloadOptions{
		Protect: protect, Kind: kind, MaxBytes: maxBytes, IfExists: m.IfExists.ValueString(),
		OnFile: func(f e2b.DownloadedFile) {
			if files++; files%downloadProgressEvery == 0 {
				sendProgress(resp, "%d files copied (last: %s).", files, e2b.SafeLine(f.Rel))
			}
		},
	})
	if err != nil {
		resp.Diagnostics.Append(m.callError(ctx, "Could not download from sandbox", downloadActionTimeout, err))
		return
	}
	msg := fmt.Sprintf("Copied %s from sandbox %s into %s: %d files, %d folders, %d bytes.", remote, id, dest, res.Files, res.Dirs, res.Bytes)
	for _, skipped := range []struct {
		what  string
		names []string
	}{
		{"Links not followed (not copied)", res.SkippedLinks},
		{"Terraform's working or configuration files (never written)", res.SkippedTerraform},
		{"Neither files nor folders (not read)", res.SkippedOther},
	} {
		if len(skipped.names) > 0 {
			msg += fmt.Sprintf(" %s: %s.", skipped.what, safeNames(skipped.names))
		}
	}
	if res.SkippedUnlisted > 0 {
		msg += fmt.Sprintf(" And %d more skipped, not named.", res.SkippedUnlisted)
	}
	sendProgress(resp, "%s", msg)
}

// safeNames joins names a sandbox chose, escaped for a terminal.
func safeNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = e2b.SafeLine(n)
	}
	return strings.Join(out, ", ")
}
