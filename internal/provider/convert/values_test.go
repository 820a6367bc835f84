package convert

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestTimeValue(t *testing.T) {
	if !TimeValue(time.Time{}).IsNull() {
		t.Error("zero time should be null")
	}
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	if got := TimeValue(ts).ValueString(); got != "2026-01-02T02:04:05Z" {
		t.Errorf("timeValue = %s", got)
	}
	if !TimePtrValue(nil).IsNull() {
		t.Error("nil time should be null")
	}
	if got := OptionalTime(TimeValue(ts)); got == nil || !got.Equal(ts) {
		t.Errorf("optionalTime(timeValue(t)) = %v, want %v", got, ts)
	}
}

func TestStringSetRoundTripSorted(t *testing.T) {
	s := StringSetValue([]string{"b", "a"})
	got, diags := StringSetFrom(context.Background(), s)
	if diags.HasError() || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("stringSetFrom = %v %v", got, diags)
	}
	if !StringSetValue(nil).IsNull() {
		t.Error("nil slice should give a null set")
	}
	if v, _ := StringSetFrom(context.Background(), types.SetNull(types.StringType)); v != nil {
		t.Error("null set should give nil")
	}
}
