package convert

import (
	"testing"

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
