package convert

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
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
