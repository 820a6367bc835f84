package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxActionModel is what every sandbox lifecycle action takes: the sandbox (by ID or
// write-only ID) and how long the action may take. Each action's model embeds it.
type sandboxActionModel struct {
	SandboxID   types.String           `tfsdk:"sandbox_id"`
	SandboxIDWO types.String           `tfsdk:"sandbox_id_wo"`
	Timeout     customtypes.GoDuration `tfsdk:"timeout"`
}

// sandboxID is the write-only sandbox ID when it is set, else the stored one.
func (m sandboxActionModel) sandboxID() string {
	if !m.SandboxIDWO.IsNull() {
		return m.SandboxIDWO.ValueString()
	}
	return m.SandboxID.ValueString()
}

// sandboxActionTimeout bounds how long one of the lifecycle actions may take.
type sandboxActionTimeout struct{ def, min, max time.Duration }

// sandboxActionAttributes are the attributes every lifecycle action shares; verb says what
// the action does to the sandbox ("snapshot", "pause").
func sandboxActionAttributes(verb string, t sandboxActionTimeout) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"sandbox_id": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("ID of the sandbox to %s, such as `caller.id` in an `e2b_sandbox`'s "+
				"`action_trigger`. Exactly one of `sandbox_id` and `sandbox_id_wo` is required.", verb),
			Optional: true, Validators: validators.SandboxID(),
		},
		"sandbox_id_wo": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("ID of the sandbox to %s, write-only: it accepts an ephemeral value such "+
				"as `ephemeral.e2b_sandbox.run.id` and is never stored. %s", verb, descActionWriteOnly),
			Optional: true, WriteOnly: true, Validators: validators.SandboxID(),
		},
		"timeout": schema.StringAttribute{
			MarkdownDescription: fmt.Sprintf("How long the action may take before it fails, as a Go duration such as "+
				"`\"90s\"` or `\"10m\"`: %s to %s. Defaults to `\"%s\"`. It bounds the whole action: the last fifth of it "+
				"(at most 30 seconds) is kept to look for what a call whose answer was lost may have made.",
				convert.ShortDuration(t.min), convert.ShortDuration(t.max), convert.ShortDuration(t.def)),
			Optional: true, CustomType: customtypes.GoDurationType{}, Validators: durationValidators(t),
		},
	}
}

func durationValidators(t sandboxActionTimeout) []validator.String {
	return []validator.String{validators.DurationBetween(t.min, t.max)}
}

// begin checks that a sandbox ID reached the action and returns the client and a context
// bounded by the action's timeout; a nil client means diags say why the action cannot run.
func (m sandboxActionModel) begin(ctx context.Context, data *base.ProviderData, t sandboxActionTimeout, diags *diag.Diagnostics) (context.Context, context.CancelFunc, *e2b.Client) {
	if m.SandboxID.IsNull() && m.SandboxIDWO.IsNull() {
		diags.AddAttributeError(path.Root("sandbox_id_wo"), "No sandbox ID reached the action",
			"Neither sandbox_id nor sandbox_id_wo has a value. "+droppedEphemeralHint)
		return ctx, func() {}, nil
	}
	client, d := data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return ctx, func() {}, nil
	}
	// The timeout bounds the whole action: the calls get all of it but a margin, in which the
	// client settles a call whose answer was lost (a snapshot it may have made).
	timeout := customtypes.DurationOr(m.Timeout, t.def)
	end := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(e2b.WithOperationDeadline(ctx, end), end.Add(-settleMargin(timeout)))
	return ctx, cancel, client
}

// callError words a failed call of a lifecycle action on m's sandbox, within the action's
// timeout (t's default when not set); summary is followed by the sandbox's ID.
func (m sandboxActionModel) callError(ctx context.Context, summary string, t sandboxActionTimeout, err error) diag.Diagnostic {
	sandboxID := m.sandboxID()
	summary += " " + sandboxID
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return diag.NewErrorDiagnostic(summary, e2b.SafeText(fmt.Sprintf("The action did not finish within its timeout of %s "+
			"(sandbox %q). Raise `timeout` on the action.\n\n%s", convert.ShortDuration(customtypes.DurationOr(m.Timeout, t.def)), sandboxID, err)))
	case e2b.IsNotFound(err):
		return diag.NewErrorDiagnostic(summary, e2b.SafeText(fmt.Sprintf("Sandbox %q does not exist or is not running: it was "+
			"killed, reached the end of its timeout, or is paused (E2B answers the same for a paused sandbox).\n\n%s",
			sandboxID, err)))
	}
	return base.ClientErrorDiagnostic(summary, err)
}

// settleMargin is the part of an action's timeout kept to settle a lost answer: a fifth, at
// most half a minute.
func settleMargin(d time.Duration) time.Duration { return min(d/5, 30*time.Second) }

// sendProgress sends one progress message to Terraform.
func sendProgress(resp *action.InvokeResponse, format string, args ...any) {
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf(format, args...)})
}

// sandboxActionConfig is what every action on one sandbox embeds (see actionConfig), with the
// rule that exactly one of sandbox_id and sandbox_id_wo names the sandbox.
type sandboxActionConfig struct{ base.ActionConfig }

func (a *sandboxActionConfig) ConfigValidators(_ context.Context) []action.ConfigValidator {
	return []action.ConfigValidator{actionvalidator.ExactlyOneOf(exactlyOneSandboxID...)}
}

// begin reads the configuration into model, whose shared part is common, and begins the
// lifecycle action on it (see sandboxActionModel.begin); a nil client means diags say why not.
func (a *sandboxActionConfig) begin(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse,
	model any, common *sandboxActionModel, t sandboxActionTimeout,
) (context.Context, context.CancelFunc, *e2b.Client) {
	resp.Diagnostics.Append(req.Config.Get(ctx, model)...)
	if resp.Diagnostics.HasError() {
		return ctx, func() {}, nil
	}
	return common.begin(ctx, a.Data, t, &resp.Diagnostics)
}
