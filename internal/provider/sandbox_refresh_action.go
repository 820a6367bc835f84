package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ action.ActionWithConfigure        = &sandboxRefreshAction{}
	_ action.ActionWithConfigValidators = &sandboxRefreshAction{}
)

var refreshActionTimeout = sandboxActionTimeout{def: 2 * time.Minute, min: 10 * time.Second, max: time.Hour}

// NewSandboxRefreshAction returns the e2b_sandbox_refresh action.
func NewSandboxRefreshAction() action.Action {
	return &sandboxRefreshAction{sandboxActionConfig{base.ActionConfig{TypeName: "_sandbox_refresh"}}}
}

// sandboxRefreshAction extends a running sandbox's life with E2B's refresh.
type sandboxRefreshAction struct {
	sandboxActionConfig
}

type sandboxRefreshActionModel struct {
	sandboxActionModel
	Duration customtypes.GoDuration `tfsdk:"duration"`
}

func (a *sandboxRefreshAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("refresh", refreshActionTimeout)
	attrs["duration"] = schema.StringAttribute{
		MarkdownDescription: "How long the sandbox may live from now, as a Go duration such as `\"30m\"`: whole seconds " +
			"from 15s to 1h (E2B's bounds). The sandbox's end moves to now + `duration` unless it was later already; " +
			"it is never shortened.",
		Required: true, CustomType: customtypes.GoDurationType{}, Validators: []validator.String{validators.WholeSecondsBetween(e2b.MinRefresh, e2b.MaxRefresh)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Extends a running sandbox's life (E2B's refresh) without changing its configured " +
			"`timeout`, for a pipeline that needs a sandbox a little longer. The `e2b_sandbox` plans no change " +
			"afterwards: its `end_at` is read from E2B. Needs Terraform 1.14 or later.",
		Attributes: attrs,
	}
}

func (a *sandboxRefreshAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m sandboxRefreshActionModel
	ctx, cancel, client := a.begin(ctx, req, resp, &m, &m.sandboxActionModel, refreshActionTimeout)
	defer cancel()
	if client == nil {
		return
	}
	id, d := m.sandboxID(), customtypes.DurationOr(m.Duration, e2b.MinRefresh)
	if err := client.RefreshSandbox(ctx, id, d); err != nil {
		resp.Diagnostics.Append(m.callError(ctx, "Could not refresh sandbox", refreshActionTimeout, err))
		return
	}
	sendProgress(resp, "Sandbox %s now lives until at least %s.", id, time.Now().Add(d).UTC().Format(time.RFC3339))
}
