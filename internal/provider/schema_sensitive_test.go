package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The framework logs a value's String() at TRACE around every semantic-equality call (and
// fmt-prints values in some errors): a sensitive attribute of a custom type, or one inside a
// sensitive attribute, must have a value whose String() never holds the value. The plain
// basetypes values are logged by no one.
func TestSensitiveCustomTypesNeverPrintTheirValue(t *testing.T) {
	ctx := context.Background()
	const marker = `{"k":"secret-marker-71c4"}`
	checked := map[string]bool{}
	for name, s := range providerSchemas(ctx) {
		walkSensitive(s, name, false, func(at string, typ attr.Type) {
			if _, ok := typ.(timetypes.RFC3339Type); ok {
				return // a timestamp (of a sensitive log entry) is no secret
			}
			st, ok := typ.(basetypes.StringTypable)
			if !ok {
				t.Errorf("%s: sensitive custom type %T is not a string type; check how it prints", at, typ)
				return
			}
			v, err := st.ValueFromTerraform(ctx, tftypes.NewValue(tftypes.String, marker))
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			if strings.Contains(v.String(), "secret-marker") {
				t.Errorf("%s: sensitive, of type %T, prints its value: %s", at, typ, v.String())
			}
			checked[at] = true
		})
	}
	if !checked["resource e2b_sandbox.mcp"] {
		t.Fatalf("the walk did not reach e2b_sandbox.mcp (checked: %v)", checked)
	}
}

// isBaseType is true for the framework's own types (their values are never logged).
func isBaseType(typ attr.Type) bool {
	return reflect.TypeOf(typ).PkgPath() == reflect.TypeOf(basetypes.StringType{}).PkgPath()
}

// walkSensitive calls visit for every attribute of a custom type that is sensitive or lies
// inside a sensitive attribute, nested ones included.
func walkSensitive(s any, at string, inSensitive bool, visit func(at string, typ attr.Type)) {
	v := reflect.ValueOf(s)
	for _, method := range []string{"GetAttributes", "GetBlocks"} {
		m := v.MethodByName(method)
		if !m.IsValid() {
			continue
		}
		iter := m.Call(nil)[0].MapRange()
		for iter.Next() {
			name := at + "." + iter.Key().String()
			a := iter.Value().Interface()
			sensitive := inSensitive
			if sa, ok := a.(interface{ IsSensitive() bool }); ok && sa.IsSensitive() {
				sensitive = true
			}
			if ta, ok := a.(interface{ GetType() attr.Type }); ok && sensitive && !isBaseType(ta.GetType()) {
				visit(name, ta.GetType())
			}
			if n := reflect.ValueOf(a).MethodByName("GetNestedObject"); n.IsValid() {
				walkSensitive(n.Call(nil)[0].Interface(), name, sensitive, visit)
			}
		}
	}
}
