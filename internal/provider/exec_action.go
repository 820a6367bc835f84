package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ action.ActionWithConfigure        = &execAction{}
	_ action.ActionWithConfigValidators = &execAction{}
)

// progressQueue is how many output batches may wait for Terraform to take
// them; when it is full the command's output stream is paused.
const progressQueue = 8

// NewExecAction returns the e2b_exec action.
func NewExecAction() action.Action {
	return &execAction{sandboxActionConfig{base.ActionConfig{TypeName: "_exec"}}}
}

// execAction runs a command in a sandbox and streams its output as progress.
type execAction struct {
	sandboxActionConfig
}

// execActionModel is the command run, nothing more: the action keeps no record.
type execActionModel struct {
	execModel
}

func (a *execAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a shell command in a running sandbox (`bash -l -c`) and streams its output, " +
			"stdout and stderr told apart, as progress messages. A non-zero exit code fails the action with the " +
			"exit code and the end of stderr; a command that runs past `timeout` is killed. Cancelling Terraform " +
			"kills the command. Needs Terraform 1.14 or later; with OpenTofu or older Terraform use the " +
			"`e2b_sandbox_command` resource.",
		Attributes: map[string]schema.Attribute{
			"sandbox_id": schema.StringAttribute{MarkdownDescription: descExec.sandboxID, Optional: true, Validators: validators.SandboxID()},
			"sandbox_id_wo": schema.StringAttribute{MarkdownDescription: descExec.sandboxIDWO + " Terraform passes ephemeral " +
				"values to an action only in write-only attributes, so an ephemeral sandbox is named here. " + descActionWriteOnly,
				Optional: true, WriteOnly: true, Validators: validators.SandboxID()},
			"command": schema.StringAttribute{MarkdownDescription: descExec.command, Required: true, Validators: validators.Command()},
			"cwd":     schema.StringAttribute{MarkdownDescription: descExec.cwd, Optional: true, Validators: []validator.String{validators.NoControlChars()}},
			"user":    schema.StringAttribute{MarkdownDescription: descExec.user, Optional: true, Validators: []validator.String{validators.NoControlChars()}},
			"timeout": schema.StringAttribute{MarkdownDescription: descExec.timeout, Optional: true,
				CustomType: customtypes.GoDurationType{}, Validators: execTimeoutValidators()},
			"env": schema.MapAttribute{MarkdownDescription: descExec.env + " Write-only, as an action cannot mark values " +
				"sensitive: it takes ephemeral values and plans show `(write-only attribute)` in its place. " + descActionWriteOnly,
				Optional: true, WriteOnly: true, ElementType: types.StringType, Validators: validators.EnvVars()},
			"stdin": schema.StringAttribute{MarkdownDescription: descExec.stdin + " Write-only, like `env`. " + descActionWriteOnly,
				Optional: true, WriteOnly: true},
		},
	}
}

func (a *execAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m execActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(droppedEphemeralValues(m.execModel)...)
	if resp.Diagnostics.HasError() {
		return
	}
	progress := newProgressRelay(ctx, resp.SendProgress)
	res, diags := runExec(ctx, a.Data, m.execModel, e2b.DefaultMaxOutputBytes, progress.send)
	progress.close()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if commandFailed(res) {
		resp.Diagnostics.Append(failedCommandDiagnostic(m.execModel, res))
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{
		Message: fmt.Sprintf("Command finished with exit code 0 (%s of output).", countLines(res.TotalLines)),
	})
}

// countLines is "1 line" or "N lines".
func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// descActionWriteOnly says when ephemeral values reach the action.
const descActionWriteOnly = "Ephemeral values reach the action when a resource's `action_trigger` runs it after " +
	"create or update, not with `terraform apply -invoke` or at destroy (Terraform then removes them)."

// droppedEphemeralHint explains a value that validated but is missing when the action runs.
const droppedEphemeralHint = "Terraform passes ephemeral values to an action only when a resource's action_trigger " +
	"runs it after create or update. When it runs the action from its plan (`terraform apply -invoke`, or a " +
	"before_destroy or after_destroy trigger), it removes every ephemeral value from the configuration first. Run " +
	"the action from an action_trigger, or give it values that are not ephemeral (the ID of an e2b_sandbox " +
	"resource in sandbox_id)."

// droppedEphemeralValues reports the required values that arrived without a value: what
// Terraform leaves of an ephemeral value when it runs an action from its plan.
func droppedEphemeralValues(m execModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if m.SandboxID.IsNull() && m.SandboxIDWO.IsNull() {
		diags.AddAttributeError(path.Root("sandbox_id_wo"), "No sandbox ID reached the action",
			"Neither sandbox_id nor sandbox_id_wo has a value. "+droppedEphemeralHint)
	}
	elems := m.Env.Elements()
	for _, name := range slices.Sorted(maps.Keys(elems)) {
		if elems[name].IsNull() {
			diags.AddAttributeError(path.Root("env").AtMapKey(name), "Environment variable without a value",
				fmt.Sprintf("env[%q] has no value. %s", name, droppedEphemeralHint))
		}
	}
	return diags
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
