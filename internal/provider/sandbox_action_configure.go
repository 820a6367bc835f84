package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
)

// sandboxActionConfig is what every action on one sandbox embeds: the provider's data, and the
// rule that exactly one of sandbox_id and sandbox_id_wo names the sandbox.
type sandboxActionConfig struct {
	data *ProviderData
}

func (a *sandboxActionConfig) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.data = data
}

func (a *sandboxActionConfig) ConfigValidators(_ context.Context) []action.ConfigValidator {
	return []action.ConfigValidator{actionvalidator.ExactlyOneOf(exactlyOneSandboxID...)}
}
