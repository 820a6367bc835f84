package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ action.ActionWithConfigure        = &sandboxResumeAction{}
	_ action.ActionWithConfigValidators = &sandboxResumeAction{}
)

// resumeActionTimeout bounds a resume, which may wait for a place at the team's sandbox limit.
var resumeActionTimeout = sandboxActionTimeout{def: 10 * time.Minute, min: 10 * time.Second, max: 2 * time.Hour}

// defaultResumeRunFor is how long a resumed sandbox runs when run_for is not set: E2B's default sandbox timeout.
const defaultResumeRunFor = 5 * time.Minute

// NewSandboxResumeAction returns the e2b_sandbox_resume action.
func NewSandboxResumeAction() action.Action {
	return &sandboxResumeAction{sandboxActionConfig{base.ActionConfig{TypeName: "_sandbox_resume"}}}
}

// sandboxResumeAction resumes a paused sandbox out of band.
type sandboxResumeAction struct {
	sandboxActionConfig
}

type sandboxResumeActionModel struct {
	sandboxActionModel
	RunFor customtypes.GoDuration `tfsdk:"run_for"`
	Memory types.Bool             `tfsdk:"memory"`
}

func (a *sandboxResumeAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("resume", resumeActionTimeout)
	attrs["run_for"] = schema.StringAttribute{
		MarkdownDescription: "How long the sandbox runs after the resume before its timeout, as a Go duration such as " +
			"`\"8h\"`: whole seconds from " + convert.ShortDuration(minSandboxTimeout) + " to " + convert.ShortDuration(maxSandboxTimeout) + " (E2B caps it at the team's longest sandbox life). Set it to the " +
			"`timeout` of the sandbox's `e2b_sandbox`. Defaults to `\"5m\"`, E2B's default. On a sandbox that is " +
			"running already it extends the life to at least this long, never shortens it.",
		Optional: true, CustomType: customtypes.GoDurationType{}, Validators: []validator.String{validators.WholeSecondsBetween(minSandboxTimeout, maxSandboxTimeout)},
	}
	attrs["memory"] = schema.BoolAttribute{
		MarkdownDescription: "Whether the resume restores the memory and processes a pause kept (`true`, E2B's default) or " +
			descResumeFromDisk,
		Optional: true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Resumes a paused sandbox, whether it was paused with memory (processes carry on) or " +
			"filesystem only (the sandbox reboots; files stay). For schedules run with `terraform apply -invoke` " +
			"without changing the configuration. " + descOutOfBandPaused + " Needs Terraform 1.14 or later.",
		Attributes: attrs,
	}
}

func (a *sandboxResumeAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m sandboxResumeActionModel
	ctx, cancel, client := a.begin(ctx, req, resp, &m, &m.sandboxActionModel, resumeActionTimeout)
	defer cancel()
	if client == nil {
		return
	}
	id, runFor := m.sandboxID(), customtypes.DurationOr(m.RunFor, defaultResumeRunFor)
	how := ""
	if fromDisk(m.Memory) {
		how = " from its disk (a cold boot)"
	}
	sendProgress(resp, "Resuming sandbox %s%s for %s…", id, how, convert.ShortDuration(runFor))
	_, resumed, err := client.ConnectSandboxWith(ctx, id, e2b.ConnectOptions{
		Timeout: int32(runFor / time.Second), FromDisk: fromDisk(m.Memory)})
	if err != nil {
		addResumeError(&resp.Diagnostics, path.Root("memory"), "Could not resume sandbox "+id, err,
			m.callError(ctx, "Could not resume sandbox", resumeActionTimeout, err))
		return
	}
	if resumed {
		sendProgress(resp, "Sandbox %s is running again, for %s.", id, convert.ShortDuration(runFor))
	} else {
		sendProgress(resp, "Sandbox %s was running already; it now runs for at least %s.", id, convert.ShortDuration(runFor))
	}
}
