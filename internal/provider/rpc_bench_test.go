package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The CPU the provider spends per resource on the calls a CLI makes for every resource of a
// plan, without any request to E2B: `go test -bench RPC -benchmem ./internal/provider`.

type rpcBench struct {
	server  tfprotov6.ProviderServer
	schemas map[string]*tfprotov6.Schema
}

func newRPCBench(b *testing.B) *rpcBench {
	b.Helper()
	ctx := context.Background()
	// As under a CLI that shows no provider logs (no TF_LOG): see SilenceDiscardedLogs.
	for _, name := range []string{"TF_LOG", "TF_LOG_PROVIDER"} {
		b.Setenv(name, "")
	}
	for _, name := range silencedLogLevels {
		b.Setenv(name, "OFF")
	}
	ps, err := ProtocolServer(New("bench")())()
	if err != nil {
		b.Fatal(err)
	}
	schema, err := ps.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	cfgType := schema.Provider.ValueType()
	cfg := rpcValue(b, cfgType, map[string]tftypes.Value{
		"api_key": tftypes.NewValue(tftypes.String, "e2b_0000000000000000000000000000000000000000"),
		"api_url": tftypes.NewValue(tftypes.String, "http://127.0.0.1:9"),
	})
	resp, err := ps.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: cfg, TerraformVersion: "1.12.6"})
	if err != nil || len(resp.Diagnostics) > 0 {
		b.Fatalf("configure: %v %+v", err, resp.Diagnostics)
	}
	return &rpcBench{server: ps, schemas: schema.ResourceSchemas}
}

// rpcValue builds an object of typ from vals, the other attributes null.
func rpcValue(b *testing.B, typ tftypes.Type, vals map[string]tftypes.Value) *tfprotov6.DynamicValue {
	b.Helper()
	all := map[string]tftypes.Value{}
	for name, at := range typ.(tftypes.Object).AttributeTypes {
		all[name] = tftypes.NewValue(at, nil)
	}
	for k, v := range vals {
		all[k] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, all))
	if err != nil {
		b.Fatal(err)
	}
	return &dv
}

// chainConfigs are the configurations of one chain as a plan sees them: the sandbox's ID is
// not known yet, nor is the file's hash the command's trigger names.
func (r *rpcBench) chainConfigs(b *testing.B) map[string]*tfprotov6.DynamicValue {
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	ty := func(name string) tftypes.Type { return r.schemas[name].ValueType() }
	return map[string]*tfprotov6.DynamicValue{
		"e2b_sandbox": rpcValue(b, ty("e2b_sandbox"), map[string]tftypes.Value{"timeout": str("1h")}),
		"e2b_sandbox_file": rpcValue(b, ty("e2b_sandbox_file"), map[string]tftypes.Value{
			"sandbox_id": unknown, "path": str("/home/user/data.txt"), "content": str("sandbox 0\n"),
		}),
		"e2b_sandbox_command": rpcValue(b, ty("e2b_sandbox_command"), map[string]tftypes.Value{
			"sandbox_id": unknown, "command": str("cat /home/user/data.txt"),
			"triggers": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"file": unknown}),
		}),
	}
}

// BenchmarkRPCPlanChain validates and plans the creation of one chain of sandbox → file →
// command, as the CLI does for each chain in the plan and again in the apply.
func BenchmarkRPCPlanChain(b *testing.B) {
	r := newRPCBench(b)
	ctx := context.Background()
	configs := r.chainConfigs(b)
	types := []string{"e2b_sandbox", "e2b_sandbox_file", "e2b_sandbox_command"}
	nulls := map[string]*tfprotov6.DynamicValue{}
	for _, name := range types {
		typ := r.schemas[name].ValueType()
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
		if err != nil {
			b.Fatal(err)
		}
		nulls[name] = &dv
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, name := range types {
			v, err := r.server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: configs[name]})
			if err != nil || len(v.Diagnostics) > 0 {
				b.Fatalf("validate %s: %v %+v", name, err, v.Diagnostics)
			}
			p, err := r.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: name, Config: configs[name], ProposedNewState: configs[name], PriorState: nulls[name],
			})
			if err != nil || len(p.Diagnostics) > 0 {
				b.Fatalf("plan %s: %v %+v", name, err, p.Diagnostics)
			}
		}
	}
}

// BenchmarkRPCGetProviderSchema is what every provider process the CLI starts pays first.
func BenchmarkRPCGetProviderSchema(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ps, err := ProtocolServer(New("bench")())()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ps.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}
