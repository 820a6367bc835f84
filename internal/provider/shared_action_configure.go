package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
)

// actionConfig is what every action embeds (see typeConfig).
type actionConfig typeConfig

func (a *actionConfig) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + a.typeName
}

func (a *actionConfig) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
