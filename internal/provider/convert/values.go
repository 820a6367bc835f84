package convert

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TimeValue is a timestamp as RFC 3339 in UTC; the zero time becomes null.
func TimeValue(t time.Time) timetypes.RFC3339 {
	if t.IsZero() {
		return timetypes.NewRFC3339Null()
	}
	return timetypes.NewRFC3339ValueMust(t.UTC().Format(time.RFC3339Nano))
}

// TimePtrValue is timeValue for optional timestamps.
func TimePtrValue(t *time.Time) timetypes.RFC3339 {
	if t == nil {
		return timetypes.NewRFC3339Null()
	}
	return TimeValue(*t)
}

// OptionalTime reads an RFC 3339 attribute validated by its type; null gives nil.
func OptionalTime(v timetypes.RFC3339) *time.Time {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	t, diags := v.ValueRFC3339Time()
	if diags.HasError() {
		return nil
	}
	return &t
}

// FullyKnown reports whether v and every value inside it are known.
func FullyKnown(ctx context.Context, v attr.Value) bool {
	tv, err := v.ToTerraformValue(ctx)
	return err == nil && tv.IsFullyKnown()
}

// OptionalString maps "" to null.
func OptionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// StringMapValue converts a Go map to a known map value (empty, never null).
func StringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

// StringMapFrom reads a map of strings; null and unknown give an empty map.
func StringMapFrom(ctx context.Context, m types.Map) (map[string]string, diag.Diagnostics) {
	out := map[string]string{}
	if m.IsNull() || m.IsUnknown() {
		return out, nil
	}
	diags := m.ElementsAs(ctx, &out, false)
	return out, diags
}

// StringSetFrom reads a set of strings in a stable (sorted) order; null gives nil.
func StringSetFrom(ctx context.Context, s types.Set) ([]string, diag.Diagnostics) {
	if s.IsNull() || s.IsUnknown() {
		return nil, nil
	}
	var out []string
	diags := s.ElementsAs(ctx, &out, false)
	sort.Strings(out)
	return out, diags
}

// StringSetValue converts a slice to a set value; nil gives null.
func StringSetValue(in []string) types.Set {
	if in == nil {
		return types.SetNull(types.StringType)
	}
	elems := make([]attr.Value, 0, len(in))
	for _, s := range in {
		elems = append(elems, types.StringValue(s))
	}
	return types.SetValueMust(types.StringType, elems)
}

// StringListValue converts a slice to a list value (empty, never null).
func StringListValue(in []string) types.List {
	elems := make([]attr.Value, 0, len(in))
	for _, s := range in {
		elems = append(elems, types.StringValue(s))
	}
	return types.ListValueMust(types.StringType, elems)
}

// BoolPtr returns a pointer for known values and nil for null or unknown.
func BoolPtr(b types.Bool) *bool {
	if b.IsNull() || b.IsUnknown() {
		return nil
	}
	v := b.ValueBool()
	return &v
}

// Quote puts s in double quotes, for messages.
func Quote(s string) string { return "\"" + s + "\"" }

// NestedAttrTypes are the attribute types of a data source's nested object whose attributes are
// attrs, for the values that fill it.
func NestedAttrTypes(attrs map[string]schema.Attribute) map[string]attr.Type {
	return schema.NestedAttributeObject{Attributes: attrs}.Type().(types.ObjectType).AttrTypes
}

// ShortDuration prints a duration without zero units: 24h rather than 24h0m0s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
