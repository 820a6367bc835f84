package provider

import (
	"context"
	"testing"
)

func TestSensitiveJSONComparesAsJSON(t *testing.T) {
	ctx := context.Background()
	a := newSensitiveJSON(`{"a":1,"b":{"c":"x"}}`)
	for s, want := range map[string]bool{
		`{ "b": {"c": "x"}, "a": 1 }`: true,
		`{"a":1,"b":{"c":"y"}}`:       false,
		`{"a":1.0,"b":{"c":"x"}}`:     false, // numbers as written, as jsontypes.Normalized
		`not json`:                    false,
	} {
		got, diags := a.StringSemanticEquals(ctx, newSensitiveJSON(s))
		if diags.HasError() || got != want {
			t.Errorf("%s: equal = %v (%v), want %v", s, got, diags, want)
		}
	}
}
