package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// dataSourceConfig is what every data source embeds to receive the provider's data.
type dataSourceConfig struct {
	data *ProviderData
}

func (c *dataSourceConfig) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	c.data = data
}

// configAndClient reads the configuration into model and returns the provider's client;
// nil means resp's diagnostics say why the read cannot go on.
func (c *dataSourceConfig) configAndClient(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, model any) *e2b.Client {
	resp.Diagnostics.Append(req.Config.Get(ctx, model)...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	client, diags := c.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	return client
}
