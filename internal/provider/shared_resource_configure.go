package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// typeConfig is what every type the provider serves keeps: its name after
// the provider's name, such as "_secret", and the provider's data, which
// Configure sets. Each kind of type has its own config with this layout
// (resourceConfig, dataSourceConfig, ephemeralConfig, sandboxActionConfig),
// because Metadata and Configure take that kind's requests.
type typeConfig struct {
	typeName string
	data     *ProviderData
}

// resourceConfig is what every resource and list resource embeds.
type resourceConfig typeConfig

func (r *resourceConfig) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

func (r *resourceConfig) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
