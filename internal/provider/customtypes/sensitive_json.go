package customtypes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// SensitiveJSONType is a JSON string for sensitive attributes (mcp): its values compare as JSON
// (whitespace and key order do not replace a sandbox), as jsontypes.Normalized does, but never
// print themselves. The framework logs a value's String() at TRACE around every semantic-equality
// call ("Calling provider defined type-based SemanticEquals", tf_value_type), and
// jsontypes.Normalized quotes its value in its syntax error: both would put the secret in the log.
type SensitiveJSONType struct {
	basetypes.StringType
}

var _ basetypes.StringTypable = SensitiveJSONType{}

func (t SensitiveJSONType) String() string { return "customtypes.SensitiveJSONType" }

func (t SensitiveJSONType) Equal(o attr.Type) bool {
	_, ok := o.(SensitiveJSONType)
	return ok
}

func (t SensitiveJSONType) ValueType(context.Context) attr.Value { return SensitiveJSON{} }

func (t SensitiveJSONType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return SensitiveJSON{StringValue: in}, nil
}

func (t SensitiveJSONType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	return stringTypableFromTerraform(ctx, t, in)
}

// SensitiveJSON is the value of sensitiveJSONType.
type SensitiveJSON struct {
	basetypes.StringValue
}

var (
	_ basetypes.StringValuableWithSemanticEquals = SensitiveJSON{}
	_ xattr.ValidateableAttribute                = SensitiveJSON{}
)

func (v SensitiveJSON) Type(context.Context) attr.Type { return SensitiveJSONType{} }

func (v SensitiveJSON) Equal(o attr.Value) bool {
	other, ok := o.(SensitiveJSON)
	return ok && v.StringValue.Equal(other.StringValue)
}

// String is what logs and debug output see: never the value.
func (v SensitiveJSON) String() string {
	switch {
	case v.IsNull():
		return attr.NullValueString
	case v.IsUnknown():
		return attr.UnknownValueString
	}
	return `"(sensitive JSON)"`
}

// StringSemanticEquals is true when both hold the same JSON; its errors never quote either value.
func (v SensitiveJSON) StringSemanticEquals(_ context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(SensitiveJSON)
	if !ok {
		return false, nil
	}
	a, errA := normalJSON(v.ValueString())
	b, errB := normalJSON(other.ValueString())
	return errA == nil && errB == nil && a == b, nil
}

// ValidateAttribute accepts any string: the attribute's own check (e2b.ValidateMCP) reports bad
// JSON once, without the value, where the library's type would print it.
func (v SensitiveJSON) ValidateAttribute(context.Context, xattr.ValidateAttributeRequest, *xattr.ValidateAttributeResponse) {
}

// normalJSON is s re-encoded (numbers kept as written), so spacing and key order do not count.
func normalJSON(s string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x)
	return string(b), err
}

// stringTypableFromTerraform is ValueFromTerraform of a custom string type: the
// string read as basetypes.StringType reads it, wrapped by t's ValueFromString.
func stringTypableFromTerraform(ctx context.Context, t basetypes.StringTypable, in tftypes.Value) (attr.Value, error) {
	v, err := basetypes.StringType{}.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	value, diags := t.ValueFromString(ctx, s)
	if diags.HasError() {
		return nil, fmt.Errorf("%v", diags)
	}
	return value, nil
}
