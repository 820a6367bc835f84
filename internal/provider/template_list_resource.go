package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ list.ListResource              = &templateListResource{}
	_ list.ListResourceWithConfigure = &templateListResource{}
)

// NewTemplateListResource returns the list resource for e2b_template
// (`terraform query`, Terraform 1.14 and later).
func NewTemplateListResource() list.ListResource { return &templateListResource{} }

// templateListResource lists the team's templates with the identity of e2b_template.
type templateListResource struct {
	data *ProviderData
}

func (l *templateListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_template"
}

func (l *templateListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's templates for `terraform query` (every page; snapshots are listed by " +
			"`e2b_snapshot`, tags by `e2b_template_tag`), each with the identity of `e2b_template` (`template_id`), so " +
			"they can be imported into configuration. E2B does not return a template's build inputs: the configuration it " +
			"generates has none, and an imported template without them keeps its builds as they are until you give its " +
			"base and steps (which then builds once). E2B's template list has no filter.",
	}
}

func (l *templateListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *templateListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	client, diags := l.data.Client()
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list templates", func() ([]e2b.Template, error) { return client.ListTemplates(ctx) },
		func(t e2b.Template) list.ListResult {
			name := templateListName(t.TemplateID, t.Names)
			display := fmt.Sprintf("%s (%s, %s)", name, t.TemplateID, t.BuildStatus)
			return listResult(ctx, req, display, map[string]string{"template_id": t.TemplateID}, func() map[string]attr.Value {
				values := map[string]attr.Value{
					"id":          types.StringValue(t.TemplateID),
					"template_id": types.StringValue(t.TemplateID),
					"name":        types.StringValue(name),
					"public":      types.BoolValue(t.Public),
					"skip_cache":  types.BoolValue(false),
					"names":       stringListValue(t.Names),
					"cpu_count":   types.Int32Value(t.CPUCount),
					"memory_mb":   types.Int32Value(t.MemoryMB),
				}
				if t.BuildStatus == e2b.BuildStatusReady {
					values["build_id"] = types.StringValue(t.BuildID)
					values["build_status"] = types.StringValue(t.BuildStatus)
				}
				return values
			})
		})
}

// templateListName is the name a template is configured by, as an import
// sets it: its first name without namespace, else its ID.
func templateListName(templateID string, names []string) string {
	if len(names) > 0 {
		return aliasOf(names[0])
	}
	return templateID
}
