package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
)

// ephemeralConfig is what every ephemeral resource embeds (see typeConfig).
type ephemeralConfig typeConfig

func (c *ephemeralConfig) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + c.typeName
}

func (c *ephemeralConfig) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	c.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
