package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	ephemeraltimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/ephemeral/timeouts"
	resourcetimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	ephemeralschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// goDurationType is timetypes.GoDurationType whose values leave the syntax to the attribute's
// validators (durationRange or goDurationSyntax; a test checks every duration attribute has one).
// The library's value checks itself on every read of the configuration, with an error that prints
// a literal "\n\nGiven Value" and the parse error on a line of its own, and a validator of another
// attribute that reads the value (ready's exactly-one-of) then reports a second, misleading error.
// Every duration attribute uses this type (CustomType: goDurationType{}, model fields goDuration).
type goDurationType struct {
	timetypes.GoDurationType
}

var _ basetypes.StringTypable = goDurationType{}

func (t goDurationType) String() string { return "provider.goDurationType" }

func (t goDurationType) Equal(o attr.Type) bool {
	_, ok := o.(goDurationType)
	return ok
}

func (t goDurationType) ValueType(context.Context) attr.Value { return goDuration{} }

func (t goDurationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return goDuration{GoDuration: timetypes.GoDuration{StringValue: in}}, nil
}

func (t goDurationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	return stringTypableFromTerraform(ctx, t, in)
}

// goDuration is the value of goDurationType: a timetypes.GoDuration (semantic equality: "300s"
// equals "5m") whose syntax error names the attribute and shows a duration to write instead.
type goDuration struct {
	timetypes.GoDuration
}

var (
	_ basetypes.StringValuableWithSemanticEquals = goDuration{}
	_ xattr.ValidateableAttribute                = goDuration{}
)

func (v goDuration) Type(context.Context) attr.Type { return goDurationType{} }

func (v goDuration) Equal(o attr.Value) bool {
	other, ok := o.(goDuration)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v goDuration) StringSemanticEquals(ctx context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(goDuration)
	if !ok {
		return false, nil
	}
	return v.GoDuration.StringSemanticEquals(ctx, other.GoDuration)
}

// ValidateAttribute accepts any string: the attribute's validator reports bad syntax, once.
func (v goDuration) ValidateAttribute(context.Context, xattr.ValidateAttributeRequest, *xattr.ValidateAttributeResponse) {
}

// checkGoDuration returns "" for a Go duration string, else the rule with an example; a bare
// number gets the example in seconds.
func checkGoDuration(s string) string {
	if _, err := time.ParseDuration(s); err == nil {
		return ""
	}
	if n := strings.TrimSpace(s); n != "" {
		if _, err := strconv.ParseFloat(n, 64); err == nil {
			return fmt.Sprintf(`must be a Go duration with a unit, such as "%ss" for seconds or "15m"`, n)
		}
	}
	return `must be a Go duration such as "90s" or "15m" (a number and a unit: ms, s, m or h; "1h30m" combines them)`
}

// goDurationSyntax is checkGoDuration as a validator, for durations without a range (durationRange
// checks the syntax too) and for the timeouts blocks.
func goDurationSyntax() validator.String {
	return stringRule{desc: `must be a Go duration such as "90s" or "15m"`, summary: "Invalid duration", check: checkGoDuration}
}

// durationRange bounds a Go duration string (goDuration checks the syntax). With
// step set, the value must also be a whole number of steps (E2B counts sandbox timeouts in
// whole seconds).
type durationRange struct {
	min, max, step time.Duration
}

var _ validator.String = durationRange{}

// durationBetween accepts durations from min to max.
func durationBetween(min, max time.Duration) durationRange { return durationRange{min: min, max: max} }

// wholeSecondsBetween accepts whole seconds from min to max.
func wholeSecondsBetween(min, max time.Duration) durationRange {
	return durationRange{min: min, max: max, step: time.Second}
}

func (v durationRange) Description(_ context.Context) string {
	s := fmt.Sprintf("a duration from %s to %s", shortDuration(v.min), shortDuration(v.max))
	if v.step == time.Second {
		s += ", in whole seconds"
	}
	return s
}

func (v durationRange) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationRange) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", fmt.Sprintf("Attribute %s %s, got: %q",
			req.Path, checkGoDuration(req.ConfigValue.ValueString()), req.ConfigValue.ValueString()))
		return
	}
	if d < v.min || d > v.max || (v.step > 0 && d%v.step != 0) {
		resp.Diagnostics.AddAttributeError(req.Path, "Duration out of range",
			fmt.Sprintf("Attribute %s must be %s, such as %q, got: %q", req.Path, v.Description(ctx),
				shortDuration(min(max(d.Round(time.Second), v.min), v.max)), req.ConfigValue.ValueString()))
	}
}

// shortDuration prints a duration without zero units: 24h rather than 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// durationOr returns the duration, or def when it is null or unknown. Values are validated at
// plan time, so a parse failure cannot happen here; it gives def too.
func durationOr(v goDuration, def time.Duration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	d, diags := v.ValueGoDuration()
	if diags.HasError() {
		return def
	}
	return d
}

// sameDuration reports whether two known durations are equal however they are spelled
// ("300s" and "5m").
func sameDuration(ctx context.Context, a, b goDuration) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return a.Equal(b)
	}
	eq, diags := a.StringSemanticEquals(ctx, b)
	return eq && !diags.HasError()
}

// durationValue returns the duration as a Go duration string, in its shortest spelling.
func durationValue(d time.Duration) goDuration {
	return goDuration{GoDuration: timetypes.NewGoDurationValueFromStringMust(shortDuration(d))}
}

// wholeSeconds converts a validated duration for E2B, which counts in seconds.
func wholeSeconds(d time.Duration) int32 { return int32(d / time.Second) }

// resourceTimeoutsBlock is the timeouts library's block with the provider's duration error.
func resourceTimeoutsBlock(ctx context.Context, opts resourcetimeouts.Opts) resourceschema.Block {
	b, ok := resourcetimeouts.Block(ctx, opts).(resourceschema.SingleNestedBlock)
	if !ok {
		return resourcetimeouts.Block(ctx, opts)
	}
	for name, a := range b.Attributes {
		if sa, ok := a.(resourceschema.StringAttribute); ok {
			sa.Validators = []validator.String{goDurationSyntax()}
			b.Attributes[name] = sa
		}
	}
	return b
}

// ephemeralTimeoutsBlock is resourceTimeoutsBlock for an ephemeral resource.
func ephemeralTimeoutsBlock(ctx context.Context) ephemeralschema.Block {
	b, ok := ephemeraltimeouts.Block(ctx).(ephemeralschema.SingleNestedBlock)
	if !ok {
		return ephemeraltimeouts.Block(ctx)
	}
	for name, a := range b.Attributes {
		if sa, ok := a.(ephemeralschema.StringAttribute); ok {
			sa.Validators = []validator.String{goDurationSyntax()}
			b.Attributes[name] = sa
		}
	}
	return b
}
