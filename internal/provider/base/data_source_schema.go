package base

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

// ComputedDataSourceList is a computed list of nested objects of a data source, each with attrs.
func ComputedDataSourceList(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{MarkdownDescription: desc, Computed: true, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

// ComputedDataSourceTime is a computed RFC 3339 timestamp of a data source.
func ComputedDataSourceTime(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: desc}
}
