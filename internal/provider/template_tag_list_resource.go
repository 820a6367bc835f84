package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ list.ListResource              = &templateTagListResource{}
	_ list.ListResourceWithConfigure = &templateTagListResource{}
)

// NewTemplateTagListResource returns the list resource for e2b_template_tag
// (`terraform query`, Terraform 1.14 and later).
func NewTemplateTagListResource() list.ListResource { return &templateTagListResource{} }

// templateTagListResource lists the tags of the team's templates with the
// identity of e2b_template_tag.
type templateTagListResource struct {
	data *ProviderData
}

type templateTagListConfigModel struct {
	Template types.String `tfsdk:"template"`
}

// listedTag is one tag of one template.
type listedTag struct {
	template string
	tag      e2b.TemplateTag
}

func (l *templateTagListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_template_tag"
}

func (l *templateTagListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the tags of the team's templates for `terraform query`, each with the identity of " +
			"`e2b_template_tag` (`template` and `tag`), so they can be imported into configuration. E2B's own tag " +
			"`default`, which follows every build, is not listed (`e2b_template_tag` cannot manage it).",
		Attributes: map[string]schema.Attribute{
			"template": schema.StringAttribute{
				MarkdownDescription: "Only the tags of this template (name or ID). Default: every template of the team.",
				Optional:            true,
				Validators:          templateFilterValidators(),
			},
		},
	}
}

func (l *templateTagListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *templateTagListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg templateTagListConfigModel
	diags := req.Config.Get(ctx, &cfg)
	client, d := l.data.Client()
	diags.Append(d...)
	if listFailed(stream, diags) {
		return
	}
	fetch := func() ([]listedTag, error) {
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
	streamListed(req, stream, "Could not list template tags", fetch, func(t listedTag) list.ListResult {
		identity := map[string]string{"template": t.template, "tag": t.tag.Tag}
		return listResult(ctx, req, t.template+":"+t.tag.Tag, identity, func() map[string]attr.Value {
			return map[string]attr.Value{
				"id":         types.StringValue(t.template + ":" + t.tag.Tag),
				"template":   types.StringValue(t.template),
				"tag":        types.StringValue(t.tag.Tag),
				"build_id":   types.StringValue(t.tag.BuildID),
				"created_at": timeValue(t.tag.CreatedAt),
			}
		})
	})
}
