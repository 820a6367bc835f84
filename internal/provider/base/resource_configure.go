package base

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// typeConfig is what every type the provider serves keeps: its name after
// the provider's name, such as "_secret", and the provider's data, which
// Configure sets. Each kind of type has its own config with this layout
// (ResourceConfig, DataSourceConfig, EphemeralConfig, ActionConfig),
// because Metadata and Configure take that kind's requests.
type typeConfig struct {
	TypeName string
	Data     *ProviderData
}

// ResourceConfig is what every resource and list resource embeds.
type ResourceConfig typeConfig

func (r *ResourceConfig) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.TypeName
}

func (r *ResourceConfig) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
