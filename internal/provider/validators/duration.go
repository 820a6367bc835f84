package validators

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

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

// GoDurationSyntax is checkGoDuration as a validator, for durations without a range (durationRange
// checks the syntax too) and for the timeouts blocks.
func GoDurationSyntax() validator.String {
	return StringRule{Desc: `must be a Go duration such as "90s" or "15m"`, Summary: "Invalid duration", Check: checkGoDuration}
}

// DurationRange bounds a Go duration string (goDuration checks the syntax). With
// step set, the value must also be a whole number of steps (E2B counts sandbox timeouts in
// whole seconds).
type DurationRange struct {
	min, max, step time.Duration
}

var _ validator.String = DurationRange{}

// DurationBetween accepts durations from min to max.
func DurationBetween(min, max time.Duration) DurationRange { return DurationRange{min: min, max: max} }

// WholeSecondsBetween accepts whole seconds from min to max.
func WholeSecondsBetween(min, max time.Duration) DurationRange {
	return DurationRange{min: min, max: max, step: time.Second}
}

func (v DurationRange) Description(_ context.Context) string {
	s := fmt.Sprintf("a duration from %s to %s", convert.ShortDuration(v.min), convert.ShortDuration(v.max))
	if v.step == time.Second {
		s += ", in whole seconds"
	}
	return s
}

func (v DurationRange) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v DurationRange) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
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
				convert.ShortDuration(min(max(d.Round(time.Second), v.min), v.max)), req.ConfigValue.ValueString()))
	}
}
