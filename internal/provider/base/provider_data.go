package base

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// ProviderData is what the provider hands to every resource, data source, action, function and
// list resource through their Configure methods.
type ProviderData struct {
	// DefaultMetadata is merged into every sandbox's metadata (the sandbox's own keys win).
	DefaultMetadata map[string]string
	// Domain is the configured E2B domain (default "e2b.app").
	Domain string

	client                 *e2b.Client
	unknownSettings        []string // connection settings not known yet, by attribute name
	DefaultMetadataUnknown bool
}

// NewProviderData is the data of a provider whose client is made; unknownSettings are the
// connection settings not known yet, by attribute name, which make every call fail until they are.
func NewProviderData(client *e2b.Client, unknownSettings []string) *ProviderData {
	return &ProviderData{Domain: client.Domain(), client: client, unknownSettings: unknownSettings}
}

// Client returns the E2B client, or an error diagnostic when it cannot make calls yet (the
// provider configuration is not known during this plan). A missing API key is reported by the
// client on the first call and mapped by addClientError.
func (d *ProviderData) Client() (*e2b.Client, diag.Diagnostics) {
	var diags diag.Diagnostics
	if d == nil || d.client == nil {
		diags.AddError("E2B provider not configured",
			"The e2b provider has not been configured yet. This happens when the provider block depends on "+
				"values known only after apply; run the apply in two steps, or set the values directly.")
		return nil, diags
	}
	if len(d.unknownSettings) > 0 {
		diags.AddError("E2B provider settings not known yet",
			fmt.Sprintf("These settings of the provider \"e2b\" block depend on values that are only known after apply: %s. "+
				"E2B cannot be called until they are known. Set them (or the matching E2B_* environment variables) "+
				"to known values, or apply in two steps.", strings.Join(d.unknownSettings, ", ")))
		return nil, diags
	}
	return d.client, diags
}

// MergedMetadata returns default_metadata overlaid with the given sandbox metadata.
func (d *ProviderData) MergedMetadata(own map[string]string) map[string]string {
	out := map[string]string{}
	if d != nil {
		maps.Copy(out, d.DefaultMetadata)
	}
	maps.Copy(out, own)
	return out
}

// providerDataFrom converts the value given to a Configure method. It returns nil without a
// diagnostic when the provider is not configured yet (validation calls Configure with nil).
func providerDataFrom(v any) (*ProviderData, diag.Diagnostics) {
	var diags diag.Diagnostics
	if v == nil {
		return nil, diags
	}
	data, ok := v.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *base.ProviderData, got %T. This is a bug in the provider; please report it.", v))
		return nil, diags
	}
	return data, diags
}
