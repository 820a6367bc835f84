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
	_ list.ListResource              = &secretListResource{}
	_ list.ListResourceWithConfigure = &secretListResource{}
)

// NewSecretListResource returns the list resource for e2b_secret
// (`terraform query`, Terraform 1.14 and later).
func NewSecretListResource() list.ListResource { return &secretListResource{} }

// secretListResource lists the team's secrets (metadata only: E2B never
// returns a value) with the identity of e2b_secret.
type secretListResource struct {
	data *ProviderData
}

func (l *secretListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_secret"
}

func (l *secretListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's secrets for `terraform query` (every page), each with the identity of " +
			"`e2b_secret` (`secret_id`), so they can be imported into configuration. Metadata only: E2B never returns a " +
			"value. The configuration it generates shows `value = null # sensitive`: an imported secret keeps the value " +
			"E2B has until you set `value` (with `value_version`) to store a new one. E2B's secret list has no filter.",
	}
}

func (l *secretListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *secretListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	client, diags := l.data.Client()
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list secrets", func() ([]e2b.Secret, error) { return client.ListSecrets(ctx) },
		func(s e2b.Secret) list.ListResult {
			return listResult(ctx, req, s.Name+" ("+s.SecretID+")", map[string]string{"secret_id": s.SecretID}, func() map[string]attr.Value {
				var m secretModel
				m.Metadata = types.MapNull(types.StringType)
				m.apply(&s)
				return map[string]attr.Value{
					"id":              m.ID,
					"secret_id":       m.SecretID,
					"name":            m.Name,
					"metadata":        m.Metadata,
					"current_version": m.CurrentVersion,
					"created_at":      m.CreatedAt,
					"updated_at":      m.UpdatedAt,
				}
			})
		})
}
