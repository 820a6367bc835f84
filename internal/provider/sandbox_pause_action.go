package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

var (
	_ action.ActionWithConfigure        = &sandboxPauseAction{}
	_ action.ActionWithConfigValidators = &sandboxPauseAction{}
)

// pauseActionTimeout bounds a pause: E2B snapshots the sandbox's memory and disk.
var pauseActionTimeout = sandboxActionTimeout{def: 10 * time.Minute, min: 10 * time.Second, max: 2 * time.Hour}

// NewSandboxPauseAction returns the e2b_sandbox_pause action.
func NewSandboxPauseAction() action.Action {
	return &sandboxPauseAction{sandboxActionConfig{base.ActionConfig{TypeName: "_sandbox_pause"}}}
}

// sandboxPauseAction pauses a sandbox out of band, as a schedule does.
type sandboxPauseAction struct {
	sandboxActionConfig
}

type sandboxPauseActionModel struct {
	sandboxActionModel
	Memory types.Bool `tfsdk:"memory"`
}

// descOutOfBandPaused is the rule for an e2b_sandbox paused or resumed by an action.
const descOutOfBandPaused = "An `e2b_sandbox` reads `paused` from E2B, so after this action its next plan would " +
	"change `paused` back to what the configuration says. On a sandbox that actions pause and resume, put `paused` " +
	"in `lifecycle { ignore_changes = [paused] }`: then plans show no changes whatever state the actions left it in."

func (a *sandboxPauseAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("pause", pauseActionTimeout)
	attrs["memory"] = schema.BoolAttribute{
		MarkdownDescription: "Whether the pause keeps memory and processes (`true`, E2B's default) or only the " +
			"filesystem (`false`: no memory snapshot, so the resume reboots the sandbox; files stay, processes do not), " +
			"as `pause_memory` on `e2b_sandbox`.",
		Optional: true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Pauses a running sandbox, for a schedule run with `terraform apply -invoke` (stop paying " +
			"at night) without changing the configuration. A sandbox that is already paused counts as paused. " +
			descOutOfBandPaused + " Needs Terraform 1.14 or later.",
		Attributes: attrs,
	}
}

func (a *sandboxPauseAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m sandboxPauseActionModel
	ctx, cancel, client := a.begin(ctx, req, resp, &m, &m.sandboxActionModel, pauseActionTimeout)
	defer cancel()
	if client == nil {
		return
	}
	id, keepMemory := m.sandboxID(), m.Memory.IsNull() || m.Memory.ValueBool()
	pause, what := client.PauseSandbox, "memory and filesystem"
	if !keepMemory {
		pause, what = client.PauseSandboxFilesystem, "filesystem only"
	}
	sendProgress(resp, "Pausing sandbox %s (%s)…", id, what)
	if err := pause(ctx, id); err != nil {
		resp.Diagnostics.Append(m.callError(ctx, "Could not pause sandbox", pauseActionTimeout, err))
		return
	}
	sendProgress(resp, "Sandbox %s is paused (%s kept).", id, what)
}
