package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// These tests drive the provider's protocol server directly, to see diagnostics (warnings) that
// plugin-testing does not expose.

// protoObject builds a value of an object type with the given attributes set and the rest null.
func protoObject(t *testing.T, typ tftypes.Type, set map[string]tftypes.Value) tftypes.Value {
	t.Helper()
	obj, ok := typ.(tftypes.Object)
	if !ok {
		t.Fatalf("%v is not an object type", typ)
	}
	vals := map[string]tftypes.Value{}
	for name, at := range obj.AttributeTypes {
		if v, ok := set[name]; ok {
			vals[name] = v
			continue
		}
		vals[name] = tftypes.NewValue(at, nil)
	}
	return tftypes.NewValue(typ, vals)
}

// protoConfiguredServer returns a protocol server configured against srv.
func protoConfiguredServer(t *testing.T, srv *emulator.Server) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	return protoServerConfiguredWith(t, "test", map[string]tftypes.Value{
		"api_key":     tftypes.NewValue(tftypes.String, srv.APIKey()),
		"api_url":     tftypes.NewValue(tftypes.String, srv.APIURL()),
		"sandbox_url": tftypes.NewValue(tftypes.String, srv.SandboxURL()),
		"max_retries": tftypes.NewValue(tftypes.Number, 0),
	})
}

// protoServerConfiguredWith returns a protocol server of the provider at version, configured by
// Terraform 1.12.6 with the given attributes (the others null); any diagnostic fails the test.
func protoServerConfiguredWith(t *testing.T, version string, attrs map[string]tftypes.Value) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	ctx := context.Background()
	ps, err := ProtocolServer(New(version)())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := ps.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cfgType := schemas.Provider.ValueType()
	dv, err := tfprotov6.NewDynamicValue(cfgType, protoObject(t, cfgType, attrs))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ps.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &dv, TerraformVersion: "1.12.6"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("configure: %s: %s", d.Summary, d.Detail)
	}
	return ps, schemas
}

// readSandbox runs ReadResource for a state holding only the given ID.
func readSandbox(t *testing.T, ps tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse, id string) *tfprotov6.ReadResourceResponse {
	t.Helper()
	typ := schemas.ResourceSchemas["e2b_sandbox"].ValueType()
	state := protoObject(t, typ, map[string]tftypes.Value{
		"id":       tftypes.NewValue(tftypes.String, id),
		"template": tftypes.NewValue(tftypes.String, "base"),
		"timeout":  tftypes.NewValue(tftypes.String, "5m"),
	})
	dv, err := tfprotov6.NewDynamicValue(typ, state)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ps.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: "e2b_sandbox", CurrentState: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestSandboxRead_goneWarnsAndRemoves(t *testing.T) {
	srv := newTestEmulator(t)
	ps, schemas := protoConfiguredServer(t, srv)
	resp := readSandbox(t, ps, schemas, "i0000000000000000gone")
	if len(resp.Diagnostics) != 1 {
		for _, d := range resp.Diagnostics {
			t.Logf("%v %s: %s", d.Severity, d.Summary, d.Detail)
		}
		t.Fatalf("want one diagnostic, got %d", len(resp.Diagnostics))
	}
	d := resp.Diagnostics[0]
	if d.Severity != tfprotov6.DiagnosticSeverityWarning || !strings.Contains(d.Detail, "expired") || !strings.Contains(d.Detail, "killed") {
		t.Errorf("want a warning saying it expired or was killed, got %v %q: %q", d.Severity, d.Summary, d.Detail)
	}
	typ := schemas.ResourceSchemas["e2b_sandbox"].ValueType()
	newState, err := resp.NewState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !newState.IsNull() {
		t.Errorf("a sandbox that is gone must be removed from state; new state: %v", newState)
	}
}

func TestSandboxRead_transientErrorKeepsState(t *testing.T) {
	srv := newTestEmulator(t)
	ps, schemas := protoConfiguredServer(t, srv)
	srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"GET /sandboxes/{id}"}})
	resp := readSandbox(t, ps, schemas, "i0000000000000000gone")
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
		t.Fatalf("want one error, got %+v", resp.Diagnostics)
	}
	if resp.NewState != nil {
		typ := schemas.ResourceSchemas["e2b_sandbox"].ValueType()
		if v, err := resp.NewState.Unmarshal(typ); err == nil && v.IsNull() {
			t.Fatal("a transient error removed the sandbox from state")
		}
	}
}

// Destroying a sandbox that already expired succeeds.
func TestSandboxDelete_alreadyGoneSucceeds(t *testing.T) {
	srv := newTestEmulator(t)
	ps, schemas := protoConfiguredServer(t, srv)
	typ := schemas.ResourceSchemas["e2b_sandbox"].ValueType()
	prior, err := tfprotov6.NewDynamicValue(typ, protoObject(t, typ, map[string]tftypes.Value{
		"id": tftypes.NewValue(tftypes.String, "i0000000000000000gone"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	planned, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ps.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox", PriorState: &prior, PlannedState: &planned, Config: &planned,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("delete of a gone sandbox: %v %s: %s", d.Severity, d.Summary, d.Detail)
	}
	if got := srv.Counters().Requests["DELETE /sandboxes/{id}"]; got != 1 {
		t.Errorf("DELETE sent %d times, want 1", got)
	}
}
