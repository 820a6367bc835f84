package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// NewSecretsDataSource returns the e2b_secrets data source: the team's
// secrets, metadata only, never values.
func NewSecretsDataSource() datasource.DataSource {
	return &base.ListDataSource[e2b.Secret]{
		TypeSuffix:  "secrets",
		Description: "The team's secrets (all pages), sorted by name: metadata only, E2B never returns values.",
		Attributes:  secretAttributes,
		Fetch:       func(ctx context.Context, c *e2b.Client) ([]e2b.Secret, error) { return c.ListSecrets(ctx) },
		Attrs:       secretAttrs,
	}
}

// secretAttrs is a secret's metadata as the attributes of secretAttributes.
func secretAttrs(s e2b.Secret) map[string]attr.Value {
	return map[string]attr.Value{
		"secret_id": types.StringValue(s.SecretID), "name": types.StringValue(s.Name),
		"current_version": types.Int64Value(s.CurrentVersion), "metadata": convert.StringMapValue(s.Metadata),
		"created_at": timetypes.NewRFC3339TimeValue(s.CreatedAt), "updated_at": timetypes.NewRFC3339TimeValue(s.UpdatedAt),
	}
}

// secretAttributes are the attributes of one secret, in the list and in the single-object data source.
func secretAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"secret_id":       schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the secret."},
		"name":            schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the secret (lower case)."},
		"current_version": schema.Int64Attribute{Computed: true, MarkdownDescription: "Version that sandboxes get."},
		"metadata":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata of the secret."},
		"created_at":      schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Creation time (RFC 3339)."},
		"updated_at":      schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Time of the last new version (RFC 3339)."},
	}
}
