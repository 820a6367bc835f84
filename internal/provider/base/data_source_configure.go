package base

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// DataSourceConfig is what every data source embeds (see typeConfig); the list
// and object data sources leave typeName empty and name themselves.
type DataSourceConfig typeConfig

func (c *DataSourceConfig) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + c.TypeName
}

func (c *DataSourceConfig) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c.Data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}

// configuredProviderData is providerDataFrom with its diagnostics appended to diags.
func configuredProviderData(providerData any, diags *diag.Diagnostics) *ProviderData {
	data, d := providerDataFrom(providerData)
	diags.Append(d...)
	return data
}

// ConfigAndClient reads the configuration into model and returns the provider's client;
// nil means resp's diagnostics say why the read cannot go on.
func (c *DataSourceConfig) ConfigAndClient(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, model any) *e2b.Client {
	client, ok := ModelAndClient(ctx, req.Config.Get, model, c.Data, &resp.Diagnostics)
	if !ok {
		return nil
	}
	return client
}
