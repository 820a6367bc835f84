package base

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
)

// ActionConfig is what every action embeds (see typeConfig).
type ActionConfig typeConfig

func (a *ActionConfig) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + a.TypeName
}

func (a *ActionConfig) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.Data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
