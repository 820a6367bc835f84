package convert

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// AttrValues are the attr.Value fields of a model struct by their tfsdk names, the fields of
// embedded structs included, as the framework reads the model: the attributes of a model for a
// list result or a nested object, without writing their names a second time.
func AttrValues(model any) map[string]attr.Value {
	out := map[string]attr.Value{}
	addAttrValues(reflect.ValueOf(model), out)
	return out
}

func addAttrValues(v reflect.Value, out map[string]attr.Value) {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("tfsdk")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addAttrValues(v.Field(i), out)
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if a, ok := v.Field(i).Interface().(attr.Value); ok {
			out[name] = a
		}
	}
}

// NullUnknowns replaces every attr.Value field of the model that pointer points to (embedded
// structs included) that is still unknown with a null of its own type, so state written from
// the model never holds an unknown, whatever attributes the model gains. A type that cannot
// make its null leaves the field unknown, which the framework then reports.
func NullUnknowns(pointer any) {
	nullUnknowns(reflect.ValueOf(pointer).Elem())
}

func nullUnknowns(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("tfsdk")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			nullUnknowns(v.Field(i))
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		value, ok := v.Field(i).Interface().(attr.Value)
		if !ok || !value.IsUnknown() {
			continue
		}
		if null := nullOf(value); null != nil && reflect.TypeOf(null).AssignableTo(f.Type) {
			v.Field(i).Set(reflect.ValueOf(null))
		}
	}
}

// nullOf is a null of value's type, made as the framework makes one from Terraform's null; the
// context only carries the framework's logging, which this conversion does not use.
func nullOf(value attr.Value) attr.Value {
	ctx := context.Background()
	typ := value.Type(ctx)
	null, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil))
	if err != nil {
		return nil
	}
	return null
}
