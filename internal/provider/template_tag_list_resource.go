package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// NewTemplateTagListResource returns the list resource for e2b_template_tag:
// the tags of the team's templates with the identity of e2b_template_tag.
func NewTemplateTagListResource() list.ListResource {
	return &base.TeamListResource[listedTag, templateTagListConfigModel]{
		ResourceConfig: base.ResourceConfig{TypeName: "_template_tag"},
		Description: "Lists the tags of the team's templates for `terraform query`, each with the identity of " +
			"`e2b_template_tag` (`template` and `tag`), so they can be imported into configuration. E2B's own tag " +
			"`default`, which follows every build, is not listed (`e2b_template_tag` cannot manage it).",
		Filter: map[string]schema.Attribute{
			"template": schema.StringAttribute{
				MarkdownDescription: "Only the tags of this template (name or ID). Default: every template of the team.",
				Optional:            true,
				Validators:          validators.TemplateFilter(),
			},
		},
		What:    "template tags",
		Fetch:   listTagsOfTemplates,
		Display: func(t listedTag) string { return t.template + ":" + t.tag.Tag },
		Identity: func(t listedTag) map[string]string {
			return map[string]string{"template": t.template, "tag": t.tag.Tag}
		},
		Values: func(t listedTag) map[string]attr.Value {
			return map[string]attr.Value{
				"id":         types.StringValue(t.template + ":" + t.tag.Tag),
				"template":   types.StringValue(t.template),
				"tag":        types.StringValue(t.tag.Tag),
				"build_id":   types.StringValue(t.tag.BuildID),
				"created_at": convert.TimeValue(t.tag.CreatedAt),
			}
		},
	}
}

type templateTagListConfigModel struct {
	Template types.String `tfsdk:"template"`
}

// listedTag is one tag of one template.
type listedTag struct {
	template string
	tag      e2b.TemplateTag
}

// listTagsOfTemplates lists the tags of the filter's template, or of every
// template of the team, without E2B's own tag `default`.
func listTagsOfTemplates(ctx context.Context, client *e2b.Client, cfg templateTagListConfigModel) ([]listedTag, error) {
	templates := []string{cfg.Template.ValueString()}
	if cfg.Template.IsNull() {
		all, err := client.ListTemplates(ctx)
		if err != nil {
			return nil, err
		}
		templates = templates[:0]
		for _, t := range all {
			templates = append(templates, templateListName(t.TemplateID, t.Names))
		}
	}
	var out []listedTag
	for _, template := range templates {
		tags, err := client.ListTemplateTags(ctx, template)
		if err != nil {
			return nil, err
		}
		for _, tag := range tags {
			if tag.Tag != "default" {
				out = append(out, listedTag{template: template, tag: tag})
			}
		}
	}
	return out, nil
}
