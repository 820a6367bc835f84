package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// sandboxActionConfig is what every action on one sandbox embeds (see typeConfig), with the
// rule that exactly one of sandbox_id and sandbox_id_wo names the sandbox.
type sandboxActionConfig typeConfig

func (a *sandboxActionConfig) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + a.typeName
}

func (a *sandboxActionConfig) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}

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
	return common.begin(ctx, a.data, t, &resp.Diagnostics)
}
