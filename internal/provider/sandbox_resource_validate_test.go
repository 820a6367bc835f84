package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A deny_out rule not known yet may well be 0.0.0.0/0: domains in allow_out are not refused.
func TestSandboxValidateConfig_unknownDenyRule(t *testing.T) {
	ctx := context.Background()
	r := &sandboxResource{}
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	netType := typ.AttributeTypes["network"].(tftypes.Object)
	set := tftypes.Set{ElementType: tftypes.String}
	network := map[string]tftypes.Value{}
	for name, at := range netType.AttributeTypes {
		network[name] = tftypes.NewValue(at, nil)
	}
	network["allow_out"] = tftypes.NewValue(set, []tftypes.Value{tftypes.NewValue(tftypes.String, "example.com")})
	network["deny_out"] = tftypes.NewValue(set, []tftypes.Value{tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["network"] = tftypes.NewValue(netType, network)
	var resp resource.ValidateConfigResponse
	r.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, attrs)}}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected error: %v", resp.Diagnostics)
	}
}

// An ingress setting not known at plan time may change at apply, where it cannot be applied in place.
func TestNetworkIngressChanged_unknownSetting(t *testing.T) {
	ctx := context.Background()
	network := func(public types.Bool, ports types.Set) types.Object {
		return types.ObjectValueMust(sandboxNetworkAttrTypes, map[string]attr.Value{
			"allow_out":            types.SetNull(types.StringType),
			"deny_out":             types.SetNull(types.StringType),
			"allow_public_traffic": public,
			"mask_request_host":    types.StringNull(),
			"rules":                networkRulesValue(nil),
			"egress_proxy":         types.ObjectNull(egressProxyResourceAttrTypes),
			"https_ports":          ports,
		})
	}
	noPorts := types.SetNull(types.Int64Type)
	var resp objectplanmodifier.RequiresReplaceIfFuncResponse
	networkIngressChanged(ctx, planmodifier.ObjectRequest{
		StateValue: network(types.BoolValue(false), noPorts),
		PlanValue:  network(types.BoolUnknown(), noPorts),
	}, &resp)
	if !resp.RequiresReplace {
		t.Fatal("an unknown allow_public_traffic must plan a replacement")
	}
	resp = objectplanmodifier.RequiresReplaceIfFuncResponse{}
	networkIngressChanged(ctx, planmodifier.ObjectRequest{
		StateValue: network(types.BoolNull(), httpsPortsValue([]int{443})),
		PlanValue:  network(types.BoolNull(), types.SetUnknown(types.Int64Type)),
	}, &resp)
	if !resp.RequiresReplace {
		t.Fatal("unknown https_ports must plan a replacement")
	}
	resp = objectplanmodifier.RequiresReplaceIfFuncResponse{}
	networkIngressChanged(ctx, planmodifier.ObjectRequest{
		StateValue: network(types.BoolNull(), httpsPortsValue([]int{443, 8443})),
		PlanValue:  network(types.BoolNull(), httpsPortsValue([]int{8443, 443})),
	}, &resp)
	if resp.RequiresReplace {
		t.Fatal("the same https_ports must not plan a replacement")
	}
}
