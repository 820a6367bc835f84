package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// NewTemplatesDataSource returns the e2b_templates data source: the team's
// templates, each with its tags.
func NewTemplatesDataSource() datasource.DataSource {
	return &base.ListDataSource[listedTemplate]{
		TypeSuffix:  "templates",
		Description: "All templates of the team that owns the API key (every page). Public templates such as `base` are usable but not listed.",
		Attributes:  listedTemplateAttributes,
		Fetch:       listTemplatesWithTags,
		Attrs:       func(t listedTemplate) map[string]attr.Value { return templateAttrs(t.Template, t.tags) },
	}
}

// listedTemplate is a template of the list with its tags.
type listedTemplate struct {
	e2b.Template
	tags []e2b.TemplateTag
}

// listTemplatesWithTags lists the templates, then the tags of each.
func listTemplatesWithTags(ctx context.Context, c *e2b.Client) ([]listedTemplate, error) {
	templates, err := c.ListTemplates(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]listedTemplate, 0, len(templates))
	for _, t := range templates {
		tags, err := visibleTags(ctx, c, t.TemplateID)
		if err != nil {
			return nil, &base.ListReadError{Summary: "Could not list the tags of template " + t.TemplateID, Err: err}
		}
		out = append(out, listedTemplate{Template: t, tags: tags})
	}
	return out, nil
}

// listedTemplateAttributes are the attributes of one template of the list.
func listedTemplateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"template_id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
		"build_id":        schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the current build."},
		"build_status":    schema.StringAttribute{Computed: true, MarkdownDescription: "Status of the current build: `building`, `waiting`, `ready` or `error`."},
		"envd_version":    schema.StringAttribute{Computed: true, MarkdownDescription: "envd version in the template."},
		"cpu_count":       schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs of sandboxes from this template."},
		"memory_mb":       schema.Int32Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
		"disk_size_mb":    schema.Int32Attribute{Computed: true, MarkdownDescription: "Disk size in MiB."},
		"public":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether other teams can use it."},
		"aliases":         schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Aliases (deprecated by E2B in favour of `names`)."},
		"names":           schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names (`namespace/name`)."},
		"created_at":      base.ComputedDataSourceTime("Creation time (RFC 3339)."),
		"updated_at":      base.ComputedDataSourceTime("Last update (RFC 3339)."),
		"last_spawned_at": base.ComputedDataSourceTime("Last time a sandbox started from it (RFC 3339), if ever."),
		"spawn_count":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of sandboxes started from it."},
		"build_count":     schema.Int32Attribute{Computed: true, MarkdownDescription: "Number of builds."},
		"tags":            templateTagsSchema(),
	}
}

// templateAttrs is one listed template as the attributes of listedTemplateAttributes.
func templateAttrs(t e2b.Template, tags []e2b.TemplateTag) map[string]attr.Value {
	return map[string]attr.Value{
		"template_id":     types.StringValue(t.TemplateID),
		"build_id":        types.StringValue(t.BuildID),
		"build_status":    types.StringValue(t.BuildStatus),
		"envd_version":    types.StringValue(t.EnvdVersion),
		"cpu_count":       types.Int32Value(t.CPUCount),
		"memory_mb":       types.Int32Value(t.MemoryMB),
		"disk_size_mb":    types.Int32Value(t.DiskSizeMB),
		"public":          types.BoolValue(t.Public),
		"aliases":         convert.StringListValue(t.Aliases),
		"names":           convert.StringListValue(t.Names),
		"created_at":      convert.TimeValue(t.CreatedAt),
		"updated_at":      convert.TimeValue(t.UpdatedAt),
		"last_spawned_at": convert.TimePtrValue(t.LastSpawnedAt),
		"spawn_count":     types.Int64Value(t.SpawnCount),
		"build_count":     types.Int32Value(t.BuildCount),
		"tags":            templateTagsValue(tags),
	}
}
