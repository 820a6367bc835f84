package provider

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// The tags of a template, as the e2b_template and e2b_templates data sources show them.

var templateTagAttrTypes = map[string]attr.Type{
	"tag":        types.StringType,
	"build_id":   types.StringType,
	"created_at": timetypes.RFC3339Type{},
}

var templateTagsType = types.ListType{ElemType: types.ObjectType{AttrTypes: templateTagAttrTypes}}

func templateTagsSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Tags of the template and the builds they point at, by tag.",
		Computed:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tag":        schema.StringAttribute{Computed: true, MarkdownDescription: "The tag; sandboxes start from `<name>:<tag>`."},
			"build_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Build the tag points at."},
			"created_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "When the tag was pointed at the build (RFC 3339)."},
		}},
	}
}

// visibleTags lists a template's tags; a template of another team (such as
// E2B's public base template) shows none instead of failing the read.
func visibleTags(ctx context.Context, client *e2b.Client, templateID string) ([]e2b.TemplateTag, error) {
	tags, err := client.ListTemplateTags(ctx, templateID)
	if e2b.IsForbidden(err) || e2b.IsNotFound(err) {
		return nil, nil
	}
	return tags, err
}

func templateTagsValue(tags []e2b.TemplateTag) types.List {
	sorted := append([]e2b.TemplateTag(nil), tags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Tag < sorted[j].Tag })
	elems := make([]attr.Value, len(sorted))
	for i, t := range sorted {
		elems[i] = types.ObjectValueMust(templateTagAttrTypes, map[string]attr.Value{
			"tag":        types.StringValue(t.Tag),
			"build_id":   types.StringValue(t.BuildID),
			"created_at": timetypes.NewRFC3339TimeValue(t.CreatedAt),
		})
	}
	return types.ListValueMust(templateTagsType.ElemType, elems)
}
