package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// configureWith runs Configure on a provider block whose attributes are the given values
// (the others null).
func configureWith(t *testing.T, values map[string]tftypes.Value) (*base.ProviderData, provider.ConfigureResponse) {
	t.Helper()
	ctx := context.Background()
	p := &e2bProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
		if v, ok := values[name]; ok {
			attrs[name] = v
		}
	}
	req := provider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, attrs)}}
	var resp provider.ConfigureResponse
	p.Configure(ctx, req, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	data, _ := resp.ResourceData.(*base.ProviderData)
	return data, resp
}

func TestConfigure_unknownEndpointRefusesCalls(t *testing.T) {
	data, _ := configureWith(t, map[string]tftypes.Value{
		"api_key": tftypes.NewValue(tftypes.String, "e2b_test"),
		"domain":  tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
	})
	_, diags := data.Client()
	if !diags.HasError() || !strings.Contains(diags[0].Detail(), "domain") {
		t.Fatalf("an unknown domain must stop calls and name the setting, got %v", diags)
	}
}

func TestConfigure_partlyUnknownDefaultMetadata(t *testing.T) {
	data, _ := configureWith(t, map[string]tftypes.Value{
		"api_key": tftypes.NewValue(tftypes.String, "e2b_test"),
		"default_metadata": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
			"team":  tftypes.NewValue(tftypes.String, "core"),
			"owner": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		}),
	})
	if !data.DefaultMetadataUnknown {
		t.Fatal("default_metadata with an unknown value must count as unknown")
	}
}
