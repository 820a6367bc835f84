package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// NewTemplateListResource returns the list resource for e2b_template: the
// team's templates with the identity of e2b_template.
func NewTemplateListResource() list.ListResource {
	return &base.TeamListResource[e2b.Template, base.NoFilter]{
		ResourceConfig: base.ResourceConfig{TypeName: "_template"},
		Description: "Lists the team's templates for `terraform query` (every page; snapshots are listed by " +
			"`e2b_snapshot`, tags by `e2b_template_tag`), each with the identity of `e2b_template` (`template_id`), so " +
			"they can be imported into configuration. E2B does not return a template's build inputs: the configuration it " +
			"generates has none, and an imported template without them keeps its builds as they are until you give its " +
			"base and steps (which then builds once). E2B's template list has no filter.",
		What:  "templates",
		Fetch: base.Unfiltered((*e2b.Client).ListTemplates),
		Display: func(t e2b.Template) string {
			return fmt.Sprintf("%s (%s, %s)", templateListName(t.TemplateID, t.Names), t.TemplateID, t.BuildStatus)
		},
		Identity: func(t e2b.Template) map[string]string { return map[string]string{"template_id": t.TemplateID} },
		Values: func(t e2b.Template) map[string]attr.Value {
			values := map[string]attr.Value{
				"id":          types.StringValue(t.TemplateID),
				"template_id": types.StringValue(t.TemplateID),
				"name":        types.StringValue(templateListName(t.TemplateID, t.Names)),
				"public":      types.BoolValue(t.Public),
				"skip_cache":  types.BoolValue(false),
				"names":       convert.StringListValue(t.Names),
				"cpu_count":   types.Int32Value(t.CPUCount),
				"memory_mb":   types.Int32Value(t.MemoryMB),
			}
			if t.BuildStatus == e2b.BuildStatusReady {
				values["build_id"] = types.StringValue(t.BuildID)
				values["build_status"] = types.StringValue(t.BuildStatus)
			}
			return values
		},
	}
}

// templateListName is the name a template is configured by, as an import
// sets it: its first name without namespace, else its ID.
func templateListName(templateID string, names []string) string {
	if len(names) > 0 {
		return aliasOf(names[0])
	}
	return templateID
}
