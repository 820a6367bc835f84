package base

import (
	"fmt"

	datasourceschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
)

// ListConfigAttributes are a data source's filter attributes as a list resource's
// configuration: a type that filters the same way on both defines its filter once. Only the
// kinds filters use are converted (string, list and map attributes); any other panics, which
// the provider's schema tests reach on the first run.
func ListConfigAttributes(attrs map[string]datasourceschema.Attribute) map[string]listschema.Attribute {
	out := make(map[string]listschema.Attribute, len(attrs))
	for name, a := range attrs {
		switch a := a.(type) {
		case datasourceschema.StringAttribute:
			out[name] = listschema.StringAttribute{MarkdownDescription: a.MarkdownDescription, Description: a.Description,
				Optional: a.Optional, Required: a.Required, CustomType: a.CustomType, Validators: a.Validators}
		case datasourceschema.ListAttribute:
			out[name] = listschema.ListAttribute{MarkdownDescription: a.MarkdownDescription, Description: a.Description,
				Optional: a.Optional, Required: a.Required, CustomType: a.CustomType, ElementType: a.ElementType,
				Validators: a.Validators}
		case datasourceschema.MapAttribute:
			out[name] = listschema.MapAttribute{MarkdownDescription: a.MarkdownDescription, Description: a.Description,
				Optional: a.Optional, Required: a.Required, CustomType: a.CustomType, ElementType: a.ElementType,
				Validators: a.Validators}
		default:
			panic(fmt.Sprintf("ListConfigAttributes: attribute %s is a %T, which no filter uses yet", name, a))
		}
	}
	return out
}
