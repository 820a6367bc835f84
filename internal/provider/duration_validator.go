package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationValidator checks a Go duration string (timetypes.GoDuration checks the syntax) against
// a range of whole seconds, which is what E2B's timeouts take.
type durationValidator struct {
	min, max time.Duration
}

var _ validator.String = durationValidator{}

// wholeSecondsBetween accepts durations from min to max in whole seconds.
func wholeSecondsBetween(min, max time.Duration) validator.String {
	return durationValidator{min: min, max: max}
}

func (v durationValidator) Description(_ context.Context) string {
	return fmt.Sprintf("must be a duration from %s to %s in whole seconds", v.min, v.max)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil {
		return // Reported by the GoDuration type with the expected syntax.
	}
	if d < v.min || d > v.max || d%time.Second != 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%s is %q; it %s, for example \"90s\" or \"10m\".", req.Path, req.ConfigValue.ValueString(), v.Description(context.Background())))
	}
}

// durationOr returns the configured duration, or def when it is null or unknown.
func durationOr(d timetypes.GoDuration, def time.Duration) time.Duration {
	if d.IsNull() || d.IsUnknown() {
		return def
	}
	v, diags := d.ValueGoDuration()
	if diags.HasError() {
		return def
	}
	return v
}
