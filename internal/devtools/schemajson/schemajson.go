// Package schemajson converts a provider's protocol-6 schema response into
// the JSON document that `terraform providers schema -json` prints, so docs
// can be generated without a Terraform CLI and with every schema kind the
// protocol knows (OpenTofu's output has no actions or list resources).
package schemajson

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// FormatVersion is the version of the providers schema JSON format written.
const FormatVersion = "1.0"

// FromServer asks a protocol-6 server for its schemas (including resource
// identities) and returns them keyed by address.
func FromServer(ctx context.Context, server tfprotov6.ProviderServer, address string) (*tfjson.ProviderSchemas, error) {
	resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, fmt.Errorf("get provider schema: %w", err)
	}
	if err := diagnosticsError("get provider schema", resp.Diagnostics); err != nil {
		return nil, err
	}
	identities, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		return nil, fmt.Errorf("get resource identity schemas: %w", err)
	}
	if err := diagnosticsError("get resource identity schemas", identities.Diagnostics); err != nil {
		return nil, err
	}
	ps, err := Convert(resp, identities.IdentitySchemas)
	if err != nil {
		return nil, err
	}
	return &tfjson.ProviderSchemas{
		FormatVersion: FormatVersion,
		Schemas:       map[string]*tfjson.ProviderSchema{address: ps},
	}, nil
}

// Marshal renders schemas as stable, indented JSON ending in a newline.
func Marshal(s *tfjson.ProviderSchemas) ([]byte, error) {
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func diagnosticsError(op string, diags []*tfprotov6.Diagnostic) error {
	var msgs []string
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			msgs = append(msgs, strings.TrimSpace(d.Summary+": "+d.Detail))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", op, strings.Join(msgs, "; "))
}

// Convert maps one provider's protocol schemas onto the terraform-json types.
func Convert(resp *tfprotov6.GetProviderSchemaResponse, identities map[string]*tfprotov6.ResourceIdentitySchema) (*tfjson.ProviderSchema, error) {
	out := &tfjson.ProviderSchema{}
	var err error
	if resp.Provider != nil {
		if out.ConfigSchema, err = schema(resp.Provider); err != nil {
			return nil, fmt.Errorf("provider: %w", err)
		}
	}
	if out.ResourceSchemas, err = schemaMap("resource", resp.ResourceSchemas); err != nil {
		return nil, err
	}
	if out.DataSourceSchemas, err = schemaMap("data source", resp.DataSourceSchemas); err != nil {
		return nil, err
	}
	if out.EphemeralResourceSchemas, err = schemaMap("ephemeral resource", resp.EphemeralResourceSchemas); err != nil {
		return nil, err
	}
	if out.ListResourceSchemas, err = schemaMap("list resource", resp.ListResourceSchemas); err != nil {
		return nil, err
	}
	if out.StateStoreSchemas, err = schemaMap("state store", resp.StateStoreSchemas); err != nil {
		return nil, err
	}
	if out.ActionSchemas, err = actionMap(resp.ActionSchemas); err != nil {
		return nil, err
	}
	if out.Functions, err = functionMap(resp.Functions); err != nil {
		return nil, err
	}
	if out.ResourceIdentitySchemas, err = identityMap(identities); err != nil {
		return nil, err
	}
	return out, nil
}

func schemaMap(kind string, in map[string]*tfprotov6.Schema) (map[string]*tfjson.Schema, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfjson.Schema, len(in))
	for _, name := range sortedKeys(in) {
		s, err := schema(in[name])
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", kind, name, err)
		}
		out[name] = s
	}
	return out, nil
}

func actionMap(in map[string]*tfprotov6.ActionSchema) (map[string]*tfjson.ActionSchema, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfjson.ActionSchema, len(in))
	for _, name := range sortedKeys(in) {
		if in[name] == nil || in[name].Schema == nil {
			return nil, fmt.Errorf("action %s: no schema", name)
		}
		b, err := block(in[name].Schema.Block)
		if err != nil {
			return nil, fmt.Errorf("action %s: %w", name, err)
		}
		out[name] = &tfjson.ActionSchema{Block: b}
	}
	return out, nil
}

func schema(in *tfprotov6.Schema) (*tfjson.Schema, error) {
	if in == nil {
		return nil, fmt.Errorf("no schema")
	}
	b, err := block(in.Block)
	if err != nil {
		return nil, err
	}
	// Terraform prints schema versions as unsigned numbers; a negative one is a provider bug.
	if in.Version < 0 {
		return nil, fmt.Errorf("negative schema version %d", in.Version)
	}
	return &tfjson.Schema{Version: uint64(in.Version), Block: b}, nil
}

func block(in *tfprotov6.SchemaBlock) (*tfjson.SchemaBlock, error) {
	out := &tfjson.SchemaBlock{}
	if in == nil {
		return out, nil
	}
	out.Description = in.Description
	out.DescriptionKind = descriptionKind(in.DescriptionKind)
	out.Deprecated = in.Deprecated
	var err error
	if out.Attributes, err = attributes(in.Attributes); err != nil {
		return nil, err
	}
	for _, nb := range in.BlockTypes {
		if nb == nil {
			continue
		}
		child, err := block(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", nb.TypeName, err)
		}
		mode, err := blockNesting(nb.Nesting)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", nb.TypeName, err)
		}
		if out.NestedBlocks == nil {
			out.NestedBlocks = map[string]*tfjson.SchemaBlockType{}
		}
		out.NestedBlocks[nb.TypeName] = &tfjson.SchemaBlockType{
			NestingMode: mode,
			Block:       child,
			MinItems:    nonNegative(nb.MinItems),
			MaxItems:    nonNegative(nb.MaxItems),
		}
	}
	return out, nil
}

func attributes(in []*tfprotov6.SchemaAttribute) (map[string]*tfjson.SchemaAttribute, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfjson.SchemaAttribute, len(in))
	for _, a := range in {
		if a == nil {
			continue
		}
		conv, err := attribute(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.Name, err)
		}
		out[a.Name] = conv
	}
	return out, nil
}

func attribute(a *tfprotov6.SchemaAttribute) (*tfjson.SchemaAttribute, error) {
	out := &tfjson.SchemaAttribute{
		Description:     a.Description,
		DescriptionKind: descriptionKind(a.DescriptionKind),
		Deprecated:      a.Deprecated,
		Required:        a.Required,
		Optional:        a.Optional,
		Computed:        a.Computed,
		Sensitive:       a.Sensitive,
		WriteOnly:       a.WriteOnly,
	}
	if a.NestedType != nil {
		attrs, err := attributes(a.NestedType.Attributes)
		if err != nil {
			return nil, err
		}
		mode, err := objectNesting(a.NestedType.Nesting)
		if err != nil {
			return nil, err
		}
		out.AttributeNestedType = &tfjson.SchemaNestedAttributeType{Attributes: attrs, NestingMode: mode}
		return out, nil
	}
	t, err := ctyType(a.Type)
	if err != nil {
		return nil, err
	}
	out.AttributeType = t
	return out, nil
}

func functionMap(in map[string]*tfprotov6.Function) (map[string]*tfjson.FunctionSignature, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfjson.FunctionSignature, len(in))
	for _, name := range sortedKeys(in) {
		f := in[name]
		if f == nil || f.Return == nil {
			return nil, fmt.Errorf("function %s: no return definition", name)
		}
		ret, err := ctyType(f.Return.Type)
		if err != nil {
			return nil, fmt.Errorf("function %s return: %w", name, err)
		}
		sig := &tfjson.FunctionSignature{
			Description:        f.Description,
			Summary:            f.Summary,
			DeprecationMessage: f.DeprecationMessage,
			ReturnType:         ret,
		}
		for _, p := range f.Parameters {
			conv, err := parameter(p)
			if err != nil {
				return nil, fmt.Errorf("function %s: %w", name, err)
			}
			sig.Parameters = append(sig.Parameters, conv)
		}
		if f.VariadicParameter != nil {
			if sig.VariadicParameter, err = parameter(f.VariadicParameter); err != nil {
				return nil, fmt.Errorf("function %s: %w", name, err)
			}
		}
		out[name] = sig
	}
	return out, nil
}

func parameter(p *tfprotov6.FunctionParameter) (*tfjson.FunctionParameter, error) {
	if p == nil {
		return nil, fmt.Errorf("nil parameter")
	}
	t, err := ctyType(p.Type)
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
	}
	return &tfjson.FunctionParameter{Name: p.Name, Description: p.Description, IsNullable: p.AllowNullValue, Type: t}, nil
}

func identityMap(in map[string]*tfprotov6.ResourceIdentitySchema) (map[string]*tfjson.IdentitySchema, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]*tfjson.IdentitySchema, len(in))
	for _, name := range sortedKeys(in) {
		s := in[name]
		if s == nil {
			continue
		}
		if s.Version < 0 {
			return nil, fmt.Errorf("identity %s: negative version %d", name, s.Version)
		}
		conv := &tfjson.IdentitySchema{Version: uint64(s.Version), Attributes: map[string]*tfjson.IdentityAttribute{}}
		for _, a := range s.IdentityAttributes {
			t, err := ctyType(a.Type)
			if err != nil {
				return nil, fmt.Errorf("identity %s attribute %s: %w", name, a.Name, err)
			}
			conv.Attributes[a.Name] = &tfjson.IdentityAttribute{
				IdentityType:      t,
				Description:       a.Description,
				RequiredForImport: a.RequiredForImport,
				OptionalForImport: a.OptionalForImport,
			}
		}
		out[name] = conv
	}
	return out, nil
}

// ctyType converts through JSON: tftypes and cty share the type notation.
func ctyType(t tftypes.Type) (cty.Type, error) {
	if t == nil {
		return cty.NilType, fmt.Errorf("no type")
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return cty.NilType, fmt.Errorf("marshal type %s: %w", t, err)
	}
	var out cty.Type
	if err := json.Unmarshal(raw, &out); err != nil {
		return cty.NilType, fmt.Errorf("type %s: %w", raw, err)
	}
	return out, nil
}

func descriptionKind(k tfprotov6.StringKind) tfjson.SchemaDescriptionKind {
	if k == tfprotov6.StringKindMarkdown {
		return tfjson.SchemaDescriptionKindMarkdown
	}
	return tfjson.SchemaDescriptionKindPlain
}

func blockNesting(m tfprotov6.SchemaNestedBlockNestingMode) (tfjson.SchemaNestingMode, error) {
	switch m {
	case tfprotov6.SchemaNestedBlockNestingModeSingle:
		return tfjson.SchemaNestingModeSingle, nil
	case tfprotov6.SchemaNestedBlockNestingModeGroup:
		return tfjson.SchemaNestingModeGroup, nil
	case tfprotov6.SchemaNestedBlockNestingModeList:
		return tfjson.SchemaNestingModeList, nil
	case tfprotov6.SchemaNestedBlockNestingModeSet:
		return tfjson.SchemaNestingModeSet, nil
	case tfprotov6.SchemaNestedBlockNestingModeMap:
		return tfjson.SchemaNestingModeMap, nil
	}
	return "", fmt.Errorf("unsupported block nesting mode %s", m)
}

func objectNesting(m tfprotov6.SchemaObjectNestingMode) (tfjson.SchemaNestingMode, error) {
	switch m {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return tfjson.SchemaNestingModeSingle, nil
	case tfprotov6.SchemaObjectNestingModeList:
		return tfjson.SchemaNestingModeList, nil
	case tfprotov6.SchemaObjectNestingModeSet:
		return tfjson.SchemaNestingModeSet, nil
	case tfprotov6.SchemaObjectNestingModeMap:
		return tfjson.SchemaNestingModeMap, nil
	}
	return "", fmt.Errorf("unsupported attribute nesting mode %s", m)
}

func nonNegative(n int64) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
