package customtypes

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// sensitiveJSONOf is the value the framework makes of a configured string.
func sensitiveJSONOf(t *testing.T, s string) basetypes.StringValuableWithSemanticEquals {
	t.Helper()
	v, diags := SensitiveJSONType{}.ValueFromString(context.Background(), types.StringValue(s))
	if diags.HasError() {
		t.Fatal(diags)
	}
	return v.(basetypes.StringValuableWithSemanticEquals)
}

func TestSensitiveJSONComparesAsJSON(t *testing.T) {
	ctx := context.Background()
	a := sensitiveJSONOf(t, `{"a":1,"b":{"c":"x"}}`)
	for s, want := range map[string]bool{
		`{ "b": {"c": "x"}, "a": 1 }`: true,
		`{"a":1,"b":{"c":"y"}}`:       false,
		`{"a":1.0,"b":{"c":"x"}}`:     false, // numbers as written, as jsontypes.Normalized
		`not json`:                    false,
	} {
		got, diags := a.StringSemanticEquals(ctx, sensitiveJSONOf(t, s))
		if diags.HasError() || got != want {
			t.Errorf("%s: equal = %v (%v), want %v", s, got, diags, want)
		}
	}
}
