package customtypes

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// GoDurationType is timetypes.GoDurationType whose values leave the syntax to the attribute's
// validators (durationRange or goDurationSyntax; a test checks every duration attribute has one).
// The library's value checks itself on every read of the configuration, with an error that prints
// a literal "\n\nGiven Value" and the parse error on a line of its own, and a validator of another
// attribute that reads the value (ready's exactly-one-of) then reports a second, misleading error.
// Every duration attribute uses this type (CustomType: goDurationType{}, model fields goDuration).
type GoDurationType struct {
	timetypes.GoDurationType
}

var _ basetypes.StringTypable = GoDurationType{}

func (t GoDurationType) String() string { return "customtypes.GoDurationType" }

func (t GoDurationType) Equal(o attr.Type) bool {
	_, ok := o.(GoDurationType)
	return ok
}

func (t GoDurationType) ValueType(context.Context) attr.Value { return GoDuration{} }

func (t GoDurationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return GoDuration{GoDuration: timetypes.GoDuration{StringValue: in}}, nil
}

func (t GoDurationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	return stringTypableFromTerraform(ctx, t, in)
}

// GoDuration is the value of goDurationType: a timetypes.GoDuration (semantic equality: "300s"
// equals "5m") whose syntax error names the attribute and shows a duration to write instead.
type GoDuration struct {
	timetypes.GoDuration
}

var (
	_ basetypes.StringValuableWithSemanticEquals = GoDuration{}
	_ xattr.ValidateableAttribute                = GoDuration{}
)

func (v GoDuration) Type(context.Context) attr.Type { return GoDurationType{} }

func (v GoDuration) Equal(o attr.Value) bool {
	other, ok := o.(GoDuration)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v GoDuration) StringSemanticEquals(ctx context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(GoDuration)
	if !ok {
		return false, nil
	}
	return v.GoDuration.StringSemanticEquals(ctx, other.GoDuration)
}

// ValidateAttribute accepts any string: the attribute's validator reports bad syntax, once.
func (v GoDuration) ValidateAttribute(context.Context, xattr.ValidateAttributeRequest, *xattr.ValidateAttributeResponse) {
}

// DurationOr returns the duration, or def when it is null or unknown. Values are validated at
// plan time, so a parse failure cannot happen here; it gives def too.
func DurationOr(v GoDuration, def time.Duration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	d, diags := v.ValueGoDuration()
	if diags.HasError() {
		return def
	}
	return d
}

// SameDuration reports whether two known durations are equal however they are spelled
// ("300s" and "5m").
func SameDuration(ctx context.Context, a, b GoDuration) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return a.Equal(b)
	}
	eq, diags := a.StringSemanticEquals(ctx, b)
	return eq && !diags.HasError()
}

// DurationValue returns the duration as a Go duration string, in its shortest spelling.
func DurationValue(d time.Duration) GoDuration {
	return GoDuration{GoDuration: timetypes.NewGoDurationValueFromStringMust(convert.ShortDuration(d))}
}

// WholeSeconds converts a validated duration for E2B, which counts in seconds.
func WholeSeconds(d time.Duration) int32 { return int32(d / time.Second) }
