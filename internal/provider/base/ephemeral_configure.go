package base

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
)

// EphemeralConfig is what every ephemeral resource embeds (see typeConfig).
type EphemeralConfig typeConfig

func (c *EphemeralConfig) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + c.TypeName
}

func (c *EphemeralConfig) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	c.Data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
