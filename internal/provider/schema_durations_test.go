package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// Every duration attribute of every type checks its syntax with the provider's error: it has
// goDurationType (not the library's type, whose error is garbled) and a validator that reports
// bad syntax (durationRange or goDurationSyntax); so have the timeouts blocks' attributes.
func TestDurationAttributesReportSyntaxOnce(t *testing.T) {
	ctx := context.Background()
	schemas := providerSchemas(ctx)
	durations := 0
	for name, s := range schemas {
		walkStringAttributes(s, name, false, func(at string, typ attr.Type, vs []validator.String, inTimeouts bool) {
			switch typ.(type) {
			case timetypes.GoDurationType:
				t.Errorf("%s: uses timetypes.GoDurationType; use goDurationType", at)
				return
			case customtypes.GoDurationType:
			default:
				if !inTimeouts {
					return
				}
			}
			durations++
			if !hasSyntaxValidator(ctx, vs) {
				t.Errorf("%s: a duration without durationRange or goDurationSyntax reports no bad syntax", at)
			}
		})
	}
	if durations < 10 {
		t.Fatalf("found %d duration attributes; the walk misses some", durations)
	}
}

// providerSchemas is every schema the provider serves (provider, resources, data sources,
// ephemeral resources, actions), by "kind type_name".
func providerSchemas(ctx context.Context) map[string]any {
	p := New("test")().(*e2bProvider)
	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	schemas := map[string]any{"provider": ps.Schema}
	add := func(kind string, typ any) {
		name, schema := typeSchema(ctx, typ)
		schemas[kind+" "+name] = schema
	}
	for _, f := range p.Resources(ctx) {
		add("resource", f())
	}
	for _, f := range p.DataSources(ctx) {
		add("data", f())
	}
	for _, f := range p.EphemeralResources(ctx) {
		add("ephemeral", f())
	}
	for _, f := range p.Actions(ctx) {
		add("action", f())
	}
	return schemas
}

// typeSchema asks a resource, data source, ephemeral resource or action for its type name and
// schema. Their packages share no interface, so it calls Metadata and Schema by name, each with
// an empty request (naming the provider "e2b") and a response it returns.
func typeSchema(ctx context.Context, typ any) (string, any) {
	call := func(method string) reflect.Value {
		m := reflect.ValueOf(typ).MethodByName(method)
		req := reflect.New(m.Type().In(1)).Elem()
		if f := req.FieldByName("ProviderTypeName"); f.IsValid() {
			f.SetString("e2b")
		}
		resp := reflect.New(m.Type().In(2).Elem())
		m.Call([]reflect.Value{reflect.ValueOf(ctx), req, resp})
		return resp.Elem()
	}
	return call("Metadata").FieldByName("TypeName").String(), call("Schema").FieldByName("Schema").Interface()
}

func hasSyntaxValidator(ctx context.Context, vs []validator.String) bool {
	for _, v := range vs {
		if _, ok := v.(validators.DurationRange); ok || v.Description(ctx) == validators.GoDurationSyntax().Description(ctx) {
			return true
		}
	}
	return false
}

// walkStringAttributes calls visit for every string attribute of a schema of any kind, nested
// ones included; the schema packages share no exported interface, so it goes by method names.
func walkStringAttributes(s any, at string, inTimeouts bool, visit func(at string, typ attr.Type, vs []validator.String, inTimeouts bool)) {
	v := reflect.ValueOf(s)
	if m := v.MethodByName("GetAttributes"); m.IsValid() {
		iter := m.Call(nil)[0].MapRange()
		for iter.Next() {
			name := at + "." + iter.Key().String()
			a := iter.Value().Interface()
			if sa, ok := a.(interface {
				GetType() attr.Type
				StringValidators() []validator.String
			}); ok {
				visit(name, sa.GetType(), sa.StringValidators(), inTimeouts)
			}
			if sa, ok := a.(interface{ GetType() attr.Type }); ok && sa.GetType() == types.StringType && !hasStringValidators(a) {
				visit(name, sa.GetType(), nil, inTimeouts)
			}
			if n := reflect.ValueOf(a).MethodByName("GetNestedObject"); n.IsValid() {
				walkStringAttributes(n.Call(nil)[0].Interface(), name, inTimeouts, visit)
			}
		}
	}
	if m := v.MethodByName("GetBlocks"); m.IsValid() {
		iter := m.Call(nil)[0].MapRange()
		for iter.Next() {
			name := at + "." + iter.Key().String()
			b := iter.Value().Interface()
			if n := reflect.ValueOf(b).MethodByName("GetNestedObject"); n.IsValid() {
				walkStringAttributes(n.Call(nil)[0].Interface(), name, inTimeouts || strings.HasSuffix(name, ".timeouts"), visit)
			}
		}
	}
}

func hasStringValidators(a any) bool {
	_, ok := a.(interface{ StringValidators() []validator.String })
	return ok
}
