package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationRange bounds a Go duration string (timetypes.GoDuration checks the syntax). With
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
		return // The attribute's type reports bad syntax.
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
func durationOr(v timetypes.GoDuration, def time.Duration) time.Duration {
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
func sameDuration(ctx context.Context, a, b timetypes.GoDuration) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return a.Equal(b)
	}
	eq, diags := a.StringSemanticEquals(ctx, b)
	return eq && !diags.HasError()
}

// durationValue returns the duration as a Go duration string, in its shortest spelling.
func durationValue(d time.Duration) timetypes.GoDuration {
	return timetypes.NewGoDurationValueFromStringMust(shortDuration(d))
}

// wholeSeconds converts a validated duration for E2B, which counts in seconds.
func wholeSeconds(d time.Duration) int32 { return int32(d / time.Second) }
