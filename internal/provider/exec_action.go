package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ action.Action                     = &execAction{}
	_ action.ActionWithConfigure        = &execAction{}
	_ action.ActionWithValidateConfig   = &execAction{}
	_ action.ActionWithConfigValidators = &execAction{}
)

// progressQueue is how many output batches may wait for Terraform to take
// them; when it is full the command's output stream is paused.
const progressQueue = 8

// NewExecAction returns the e2b_exec action.
func NewExecAction() action.Action { return &execAction{} }

// execAction runs a command in a sandbox and streams its output as progress.
type execAction struct {
	data *ProviderData
}

type execActionModel struct {
	SandboxID   types.String `tfsdk:"sandbox_id"`
	SandboxIDWO types.String `tfsdk:"sandbox_id_wo"`
	Command     types.String `tfsdk:"command"`
	Cwd         types.String `tfsdk:"cwd"`
	Env         types.Map    `tfsdk:"env"`
	User        types.String `tfsdk:"user"`
	Stdin       types.String `tfsdk:"stdin"`
	Timeout     types.String `tfsdk:"timeout"`
}

func (a *execAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

func (a *execAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a shell command in a running sandbox (`bash -l -c`) and streams its output, " +
			"stdout and stderr told apart, as progress messages. A non-zero exit code fails the action with the " +
			"exit code and the end of stderr; a command that runs past `timeout` is killed. Cancelling Terraform " +
			"kills the command. Needs Terraform 1.14 or later; with OpenTofu or older Terraform use the " +
			"`e2b_sandbox_command` resource.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox to run the command in. Exactly one of `sandbox_id` and `sandbox_id_wo` is required.",
				Optional:            true,
				Validators:          []validator.String{sandboxIDValidator()},
			},
			"sandbox_id_wo": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox to run the command in, write-only: Terraform accepts ephemeral values in " +
					"action configuration only in write-only attributes, so use this one for `ephemeral.e2b_sandbox.run.id`.",
				Optional:   true,
				WriteOnly:  true,
				Validators: []validator.String{sandboxIDValidator()},
			},
			"command": schema.StringAttribute{
				MarkdownDescription: "Shell command, run with `bash -l -c`.",
				Required:            true,
			},
			"cwd": schema.StringAttribute{
				MarkdownDescription: "Working directory: absolute, `~/…`, or relative to the user's home. " +
					"Defaults to the template's working directory or the user's home.",
				Optional: true,
			},
			"env": schema.MapAttribute{
				MarkdownDescription: "Environment variables for the command, added to the sandbox's own. " +
					"Write-only: accepts ephemeral values and is never stored.",
				Optional:    true,
				WriteOnly:   true,
				ElementType: types.StringType,
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User to run the command as, e.g. `root`. Defaults to the template's user (`user`).",
				Optional:            true,
			},
			"stdin": schema.StringAttribute{
				MarkdownDescription: "Text written to the command's standard input, which is then closed. " +
					"Without it the command reads nothing (`/dev/null`). Write-only: accepts ephemeral values.",
				Optional:  true,
				WriteOnly: true,
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the command may run before it is killed, as a duration such as " +
					"`\"90s\"` or `\"10m\"` (1s to 24h). Defaults to `\"10m\"`.",
				Optional: true,
			},
		},
	}
}

func (a *execAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.data = data
}

func (a *execAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m execActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateExecConfig(m.Command, m.Timeout, &resp.Diagnostics)
}

func (a *execAction) ConfigValidators(_ context.Context) []action.ConfigValidator {
	return []action.ConfigValidator{
		actionvalidator.ExactlyOneOf(path.MatchRoot("sandbox_id"), path.MatchRoot("sandbox_id_wo")),
	}
}

func (a *execAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m execActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, diags := m.inputs(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	progress := newProgressRelay(ctx, resp.SendProgress)
	res, diags := runExec(ctx, a.data, in, in.execRequest(e2b.DefaultMaxOutputBytes, progress.send))
	progress.close()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if res.TimedOut || res.ExitCode != 0 {
		resp.Diagnostics.Append(failedCommandDiagnostic(in, res))
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{
		Message: fmt.Sprintf("Command finished with exit code 0 (%d lines of output).", res.TotalLines),
	})
}

func (m execActionModel) inputs(ctx context.Context) (execInputs, diag.Diagnostics) {
	return execInputsFrom(ctx, sandboxIDOf(m.SandboxID, m.SandboxIDWO), m.Command, m.Cwd, m.User, m.Stdin, m.Env, m.Timeout)
}

// progressRelay hands output batches to Terraform from its own goroutine, so
// the command loop keeps reacting to cancellation while Terraform is busy.
type progressRelay struct {
	ctx  context.Context
	ch   chan string
	done chan struct{}
}

func newProgressRelay(ctx context.Context, send func(action.InvokeProgressEvent)) *progressRelay {
	p := &progressRelay{ctx: ctx, ch: make(chan string, progressQueue), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for msg := range p.ch {
			if ctx.Err() == nil { // After a cancellation nobody may be reading.
				send(action.InvokeProgressEvent{Message: msg})
			}
		}
	}()
	return p
}

func (p *progressRelay) send(b e2b.OutputBatch) {
	select {
	case p.ch <- formatOutputBatch(b):
	case <-p.ctx.Done():
	}
}

// close waits until every queued batch reached Terraform (or the run is cancelled).
func (p *progressRelay) close() {
	close(p.ch)
	select {
	case <-p.done:
	case <-p.ctx.Done():
	}
}
