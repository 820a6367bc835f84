package base

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// ComputedString is a computed string of a resource, with its plan modifiers.
func ComputedString(desc string, mods []planmodifier.String) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Computed: true, PlanModifiers: mods}
}

// ComputedInt32 is a computed 32-bit integer of a resource, with its plan modifiers.
func ComputedInt32(desc string, mods []planmodifier.Int32) schema.Int32Attribute {
	return schema.Int32Attribute{MarkdownDescription: desc, Computed: true, PlanModifiers: mods}
}

// ComputedTime is a computed RFC 3339 timestamp of a resource.
func ComputedTime(desc string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Computed: true, CustomType: timetypes.RFC3339Type{}}
}

// WithAttributes is base with more attributes added, for a schema built from shared parts (of any
// kind of type: the attribute type is the parameter).
func WithAttributes[T any](base, more map[string]T) map[string]T {
	maps.Copy(base, more)
	return base
}
