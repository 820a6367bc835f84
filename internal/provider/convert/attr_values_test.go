package convert

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type embeddedModel struct {
	Name types.String `tfsdk:"name"`
}

type outerModel struct {
	embeddedModel
	Count  types.Int64 `tfsdk:"count"`
	hidden types.String
	Plain  string `tfsdk:"-"`
}

func TestAttrValuesReadsEmbeddedFieldsByTag(t *testing.T) {
	m := outerModel{embeddedModel: embeddedModel{Name: types.StringValue("a")}, Count: types.Int64Value(2), hidden: types.StringValue("x")}
	got := AttrValues(&m)
	if len(got) != 2 || !got["name"].Equal(types.StringValue("a")) || !got["count"].Equal(types.Int64Value(2)) {
		t.Fatalf("AttrValues = %v, want name and count only", got)
	}
	if len(AttrValues(m)) != 2 {
		t.Fatal("a model passed by value must read as one passed by pointer")
	}
}

type unknownsModel struct {
	embeddedModel
	At    timetypes.RFC3339 `tfsdk:"at"`
	Tags  types.Map         `tfsdk:"tags"`
	Count types.Int32       `tfsdk:"count"`
	Known types.String      `tfsdk:"known"`
}

func TestNullUnknownsLeavesNoUnknownOfAnyType(t *testing.T) {
	m := unknownsModel{embeddedModel: embeddedModel{Name: types.StringUnknown()}, At: timetypes.NewRFC3339Unknown(),
		Tags: types.MapUnknown(types.StringType), Count: types.Int32Unknown(), Known: types.StringValue("kept")}
	NullUnknowns(&m)
	for name, v := range AttrValues(m) {
		if v.IsUnknown() {
			t.Errorf("%s is still unknown", name)
		}
	}
	if !m.Name.IsNull() || !m.At.IsNull() || !m.Tags.IsNull() || !m.Count.IsNull() {
		t.Errorf("unknowns must become nulls: %+v", m)
	}
	if !m.Tags.ElementType(context.Background()).Equal(types.StringType) {
		t.Errorf("the null map lost its element type: %v", m.Tags)
	}
	if m.Known.ValueString() != "kept" {
		t.Errorf("a known value changed: %v", m.Known)
	}
}
