package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// dataSourceConfig is what every data source embeds to receive the provider's data.
type dataSourceConfig struct {
	data *ProviderData
}

func (c *dataSourceConfig) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}

// configuredProviderData is providerDataFrom with its diagnostics appended to diags.
func configuredProviderData(providerData any, diags *diag.Diagnostics) *ProviderData {
	data, d := providerDataFrom(providerData)
	diags.Append(d...)
	return data
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
