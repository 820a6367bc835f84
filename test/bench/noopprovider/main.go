// Command noopprovider is a Terraform plugin (protocol 6) that serves exactly
// the real e2b provider's schemas but never calls E2B: plans echo the proposed
// state, applies invent values for what is unknown. Benchmarks run it under
// the same configuration as the real provider to measure the CLI's own cost
// (graph walk, plan rendering, state handling) for the same object sizes.
package main

import (
	"context"
	"fmt"
	"log"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider"
)

// Address is the provider address the CLI expects the plugin to serve.
const Address = "registry.terraform.io/e2b-terraform/e2b"

func main() {
	noop, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if err := tf6server.Serve(Address, func() tfprotov6.ProviderServer { return noop }); err != nil {
		log.Fatal(err)
	}
}

// server answers every RPC locally; real is consulted for schemas only.
type server struct {
	real tfprotov6.ProviderServer

	loadOnce   sync.Once
	loadErr    error
	resources  map[string]*tfprotov6.Schema
	identities map[string]*tfprotov6.ResourceIdentitySchema

	// seq numbers invented values; idPrefix keeps ids unique across runs,
	// since every CLI run starts a fresh plugin process.
	seq      atomic.Uint64
	idPrefix string
}

var _ tfprotov6.ProviderServer = (*server)(nil)

func newServer() (*server, error) {
	real, err := providerserver.NewProtocol6WithError(provider.New("bench")())()
	if err != nil {
		return nil, err
	}
	return &server{real: real, idPrefix: fmt.Sprintf("%x", time.Now().UnixNano())}, nil
}

// schemas loads the resource and identity schemas once, lazily, so the
// request context (and its logger) is the one the framework expects.
func (s *server) schemas(ctx context.Context) error {
	s.loadOnce.Do(func() {
		ps, err := s.real.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			s.loadErr = err
			return
		}
		if err := diagsErr(ps.Diagnostics); err != nil {
			s.loadErr = err
			return
		}
		is, err := s.real.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
		if err != nil {
			s.loadErr = err
			return
		}
		if err := diagsErr(is.Diagnostics); err != nil {
			s.loadErr = err
			return
		}
		s.resources = ps.ResourceSchemas
		s.identities = is.IdentitySchemas
	})
	return s.loadErr
}

func diagsErr(diags []*tfprotov6.Diagnostic) error {
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return nil
}

func errDiag(summary string, err error) []*tfprotov6.Diagnostic {
	d := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary}
	if err != nil {
		d.Detail = err.Error()
	}
	return []*tfprotov6.Diagnostic{d}
}

func unsupported(what string) []*tfprotov6.Diagnostic {
	return errDiag(what+" is not supported by the no-op provider", nil)
}

// resourceSchema returns the schema of typeName, or diagnostics.
func (s *server) resourceSchema(ctx context.Context, typeName string) (*tfprotov6.Schema, []*tfprotov6.Diagnostic) {
	if err := s.schemas(ctx); err != nil {
		return nil, errDiag("Loading the provider's schemas failed", err)
	}
	sch, ok := s.resources[typeName]
	if !ok || sch == nil {
		return nil, errDiag("Unknown resource type", fmt.Errorf("%q is not a resource of this provider", typeName))
	}
	return sch, nil
}

// Schemas: forwarded, so the CLI sees what it would with the real provider.

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return s.real.GetMetadata(ctx, req)
}

func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.real.GetProviderSchema(ctx, req)
}

func (s *server) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return s.real.GetResourceIdentitySchemas(ctx, req)
}

func (s *server) GetFunctions(ctx context.Context, req *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return s.real.GetFunctions(ctx, req)
}

// Provider configuration: accepted as is; there is no client to configure.

func (s *server) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *server) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (s *server) StopProvider(context.Context, *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return &tfprotov6.StopProviderResponse{}, nil
}

// Resources.

func (s *server) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

// decodeRaw decodes stored JSON (or flatmap) with the current type; the
// schemas have a single version, so there is nothing to migrate.
func decodeRaw(raw *tfprotov6.RawState, typ tftypes.Type) (*tfprotov6.DynamicValue, error) {
	if raw == nil {
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
		return &dv, err
	}
	v, err := raw.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	return &dv, err
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	sch, diags := s.resourceSchema(ctx, req.TypeName)
	if diags != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: diags}, nil
	}
	dv, err := decodeRaw(req.RawState, sch.ValueType())
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errDiag("Decoding the stored state failed", err)}, nil
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: dv}, nil
}

func (s *server) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	if err := s.schemas(ctx); err != nil {
		return &tfprotov6.UpgradeResourceIdentityResponse{Diagnostics: errDiag("Loading the provider's schemas failed", err)}, nil
	}
	idSchema, ok := s.identities[req.TypeName]
	if !ok {
		return &tfprotov6.UpgradeResourceIdentityResponse{Diagnostics: errDiag("Unknown identity", fmt.Errorf("%q has no identity schema", req.TypeName))}, nil
	}
	dv, err := decodeRaw(req.RawIdentity, idSchema.ValueType())
	if err != nil {
		return &tfprotov6.UpgradeResourceIdentityResponse{Diagnostics: errDiag("Decoding the stored identity failed", err)}, nil
	}
	return &tfprotov6.UpgradeResourceIdentityResponse{UpgradedIdentity: &tfprotov6.ResourceIdentityData{IdentityData: dv}}, nil
}

// ReadResource reports the state unchanged: nothing exists to drift.
func (s *server) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{
		NewState:    req.CurrentState,
		NewIdentity: req.CurrentIdentity,
		Private:     req.Private,
	}, nil
}

// decode reads a value the CLI may omit; absent means null.
func decode(dv *tfprotov6.DynamicValue, typ tftypes.Type) (tftypes.Value, error) {
	if dv == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	return dv.Unmarshal(typ)
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	sch, diags := s.resourceSchema(ctx, req.TypeName)
	if diags != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: diags}, nil
	}
	typ := sch.ValueType()
	fail := func(summary string, err error) (*tfprotov6.PlanResourceChangeResponse, error) {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: errDiag(summary, err)}, nil
	}
	proposed, err := decode(req.ProposedNewState, typ)
	if err != nil {
		return fail("Decoding the proposed state failed", err)
	}
	prior, err := decode(req.PriorState, typ)
	if err != nil {
		return fail("Decoding the prior state failed", err)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate}
	if proposed.IsNull() || !prior.IsNull() {
		// Destroy plans null; updates keep the proposed state, in which the
		// CLI already carried prior values into computed attributes.
		resp.PlannedState = req.ProposedNewState
		if !proposed.IsNull() {
			resp.PlannedIdentity = req.PriorIdentity
		}
		return resp, nil
	}
	config, err := decode(req.Config, typ)
	if err != nil {
		return fail("Decoding the configuration failed", err)
	}
	// On create, computed attributes the configuration leaves null become
	// unknown, as a real provider that learns them from the API would plan.
	planned, err := tftypes.Transform(proposed, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		attr := schemaAttribute(sch.Block, p.Steps())
		if attr == nil || !attr.Computed || !v.IsNull() {
			return v, nil
		}
		if cv, _, err := tftypes.WalkAttributePath(config, p); err == nil {
			if c, ok := cv.(tftypes.Value); ok && !c.IsNull() {
				return v, nil
			}
		}
		return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
	})
	if err != nil {
		return fail("Planning failed", err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, planned)
	if err != nil {
		return fail("Encoding the planned state failed", err)
	}
	resp.PlannedState = &dv
	return resp, nil
}

// schemaAttribute finds the attribute a value path names, through nested
// blocks and nested attributes; nil for blocks and collection elements.
func schemaAttribute(b *tfprotov6.SchemaBlock, steps []tftypes.AttributePathStep) *tfprotov6.SchemaAttribute {
	if b == nil || len(steps) == 0 {
		return nil
	}
	name, ok := steps[0].(tftypes.AttributeName)
	if !ok {
		return nil
	}
	rest := steps[1:]
	for _, a := range b.Attributes {
		if a.Name == string(name) {
			return nestedAttribute(a, rest)
		}
	}
	for _, nb := range b.BlockTypes {
		if nb.TypeName != string(name) {
			continue
		}
		if nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeSingle && nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeGroup {
			if len(rest) == 0 {
				return nil
			}
			rest = rest[1:] // The element key.
		}
		return schemaAttribute(nb.Block, rest)
	}
	return nil
}

func nestedAttribute(a *tfprotov6.SchemaAttribute, rest []tftypes.AttributePathStep) *tfprotov6.SchemaAttribute {
	if len(rest) == 0 {
		return a
	}
	obj := a.NestedType
	if obj == nil {
		return nil
	}
	if obj.Nesting != tfprotov6.SchemaObjectNestingModeSingle {
		rest = rest[1:] // The element key.
		if len(rest) == 0 {
			return nil
		}
	}
	name, ok := rest[0].(tftypes.AttributeName)
	if !ok {
		return nil
	}
	for _, na := range obj.Attributes {
		if na.Name == string(name) {
			return nestedAttribute(na, rest[1:])
		}
	}
	return nil
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	sch, diags := s.resourceSchema(ctx, req.TypeName)
	if diags != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: diags}, nil
	}
	typ := sch.ValueType()
	fail := func(summary string, err error) (*tfprotov6.ApplyResourceChangeResponse, error) {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: errDiag(summary, err)}, nil
	}
	planned, err := decode(req.PlannedState, typ)
	if err != nil {
		return fail("Decoding the planned state failed", err)
	}
	if planned.IsNull() {
		dv, err := tfprotov6.NewDynamicValue(typ, planned)
		if err != nil {
			return fail("Encoding the new state failed", err)
		}
		return &tfprotov6.ApplyResourceChangeResponse{NewState: &dv}, nil
	}
	state, err := tftypes.Transform(planned, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		return s.invent(v.Type(), p.Equal(tftypes.NewAttributePath().WithAttributeName("id"))), nil
	})
	if err != nil {
		return fail("Filling unknown values failed", err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, state)
	if err != nil {
		return fail("Encoding the new state failed", err)
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: &dv, Private: req.PlannedPrivate}
	if idSchema, ok := s.identities[req.TypeName]; ok && idSchema != nil {
		id, err := s.identity(idSchema, state)
		if err != nil {
			return fail("Building the identity failed", err)
		}
		resp.NewIdentity = &tfprotov6.ResourceIdentityData{IdentityData: id}
	}
	return resp, nil
}

// identitySources lists, per identity attribute, the state attributes that
// hold its value, best first.
var identitySources = map[string][]string{
	"sandbox_id": {"sandbox_id", "id"},
	"path":       {"absolute_path", "path"},
}

// identity fills each identity attribute from the state attribute of the
// same meaning, inventing a value when the state has none.
func (s *server) identity(idSchema *tfprotov6.ResourceIdentitySchema, state tftypes.Value) (*tfprotov6.DynamicValue, error) {
	var attrs map[string]tftypes.Value
	if err := state.As(&attrs); err != nil {
		return nil, err
	}
	typ := idSchema.ValueType()
	vals := make(map[string]tftypes.Value, len(idSchema.IdentityAttributes))
	for _, ia := range idSchema.IdentityAttributes {
		sources := identitySources[ia.Name]
		if sources == nil {
			sources = []string{ia.Name}
		}
		for _, src := range sources {
			if v, ok := attrs[src]; ok && v.IsKnown() && !v.IsNull() && v.Type().Equal(ia.Type) {
				vals[ia.Name] = v
				break
			}
		}
		if _, ok := vals[ia.Name]; !ok {
			vals[ia.Name] = s.invent(ia.Type, false)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	return &dv, err
}

// invent returns a known value of type t: "noop-<n>" strings (each distinct,
// so set elements stay distinct), zero, false, empty collections, and
// objects and tuples filled recursively. unique makes a string that no other
// run produces either, for resource IDs.
func (s *server) invent(t tftypes.Type, unique bool) tftypes.Value {
	switch tt := t.(type) {
	case tftypes.List:
		return tftypes.NewValue(tt, []tftypes.Value{})
	case tftypes.Set:
		return tftypes.NewValue(tt, []tftypes.Value{})
	case tftypes.Map:
		return tftypes.NewValue(tt, map[string]tftypes.Value{})
	case tftypes.Object:
		vals := make(map[string]tftypes.Value, len(tt.AttributeTypes))
		for name, at := range tt.AttributeTypes {
			vals[name] = s.invent(at, false)
		}
		return tftypes.NewValue(tt, vals)
	case tftypes.Tuple:
		vals := make([]tftypes.Value, len(tt.ElementTypes))
		for i, et := range tt.ElementTypes {
			vals[i] = s.invent(et, false)
		}
		return tftypes.NewValue(tt, vals)
	}
	switch {
	case t.Is(tftypes.Number):
		return tftypes.NewValue(t, big.NewFloat(0))
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, false)
	}
	// Strings, and the dynamic type, for which a string is a valid choice.
	n := s.seq.Add(1)
	if unique {
		return tftypes.NewValue(tftypes.String, fmt.Sprintf("noop-%s-%d", s.idPrefix, n))
	}
	return tftypes.NewValue(tftypes.String, fmt.Sprintf("noop-%d", n))
}

func (s *server) ImportResourceState(context.Context, *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return &tfprotov6.ImportResourceStateResponse{Diagnostics: unsupported("Import")}, nil
}

func (s *server) MoveResourceState(context.Context, *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return &tfprotov6.MoveResourceStateResponse{Diagnostics: unsupported("Moving resource state")}, nil
}

func (s *server) GenerateResourceConfig(context.Context, *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return &tfprotov6.GenerateResourceConfigResponse{Diagnostics: unsupported("Generating configuration")}, nil
}

// Data sources, functions and ephemeral resources would need the API (or are
// outside what the benchmarks exercise).

func (s *server) ValidateDataResourceConfig(context.Context, *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return &tfprotov6.ValidateDataResourceConfigResponse{}, nil
}

func (s *server) ReadDataSource(context.Context, *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return &tfprotov6.ReadDataSourceResponse{Diagnostics: unsupported("Reading data sources")}, nil
}

func (s *server) CallFunction(context.Context, *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: "functions are not supported by the no-op provider"}}, nil
}

func (s *server) ValidateEphemeralResourceConfig(context.Context, *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov6.ValidateEphemeralResourceConfigResponse{}, nil
}

func (s *server) OpenEphemeralResource(context.Context, *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return &tfprotov6.OpenEphemeralResourceResponse{Diagnostics: unsupported("Ephemeral resources")}, nil
}

func (s *server) RenewEphemeralResource(context.Context, *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return &tfprotov6.RenewEphemeralResourceResponse{Diagnostics: unsupported("Ephemeral resources")}, nil
}

func (s *server) CloseEphemeralResource(context.Context, *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return &tfprotov6.CloseEphemeralResourceResponse{Diagnostics: unsupported("Ephemeral resources")}, nil
}
