package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var downloadActionTimeout = sandboxActionTimeout{def: 30 * time.Minute, min: 10 * time.Second, max: 24 * time.Hour}

// downloadProgressEvery is how many files may come down between two progress messages.
const downloadProgressEvery = 100

// NewSandboxDownloadAction returns the e2b_sandbox_download action.
func NewSandboxDownloadAction() action.Action {
	return &sandboxDownloadAction{sandboxActionConfig{typeName: "_sandbox_download"}}
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
}

func (a *sandboxDownloadAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("copy from", downloadActionTimeout)
	attrs["path"] = schema.StringAttribute{
		MarkdownDescription: "Absolute path of a file or folder in the sandbox, such as `\"/home/user/app/reports\"`. " +
			"A link is refused: name its target.",
		Required: true,
		Validators: []validator.String{noControlCharsValidator(), stringvalidator.RegexMatches(absolutePathPattern,
			"must be an absolute path in the sandbox, such as \"/home/user/reports\"")},
	}
	attrs["destination"] = schema.StringAttribute{
		MarkdownDescription: "Local folder to copy into, created when missing (relative paths are relative to the " +
			"directory Terraform runs in, e.g. `\"${path.root}/reports\"`). A file lands as `<destination>/<its name>`, " +
			"a folder's content as the destination's content; files already there are replaced, others left alone.",
		Required: true, Validators: []validator.String{noControlCharsValidator(), stringvalidator.LengthAtLeast(1)},
	}
	attrs["user"] = schema.StringAttribute{
		MarkdownDescription: "User to read the files as, e.g. `root`. Defaults to the template's user (`user`).",
		Optional:            true, Validators: []validator.String{noControlCharsValidator()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Copies a file or a folder out of a running sandbox into a local folder: test reports " +
			"and build artefacts after a run, or a sandbox's work before a destroy (`before_destroy`, Terraform 1.16+). " +
			"Files stream to disk (memory stays bounded whatever their size). It never writes outside `destination`: " +
			"links in the sandbox are not followed (they are skipped and listed in the output), and a local link in " +
			"`destination` where a file or folder would go fails the action instead of being written through. " +
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
	sendProgress(resp, "Copying %s from sandbox %s into %s…", remote, id, dest)
	files := 0
	res, err := envd.Download(ctx, remote, dest, func(f e2b.DownloadedFile) {
		if files++; files%downloadProgressEvery == 0 {
			sendProgress(resp, "%d files copied (last: %s).", files, f.Rel)
		}
	})
	if err != nil {
		resp.Diagnostics.Append(m.callError(ctx, "Could not download from sandbox", downloadActionTimeout, err))
		return
	}
	msg := fmt.Sprintf("Copied %s from sandbox %s into %s: %d files, %d folders, %d bytes.", remote, id, dest, res.Files, res.Dirs, res.Bytes)
	if len(res.SkippedLinks) > 0 {
		msg += fmt.Sprintf(" Links not followed (not copied): %s.", strings.Join(res.SkippedLinks, ", "))
	}
	sendProgress(resp, "%s", msg)
}
