package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewSecretListResource returns the list resource for e2b_secret: the team's
// secrets (metadata only: E2B never returns a value) with the identity of
// e2b_secret.
func NewSecretListResource() list.ListResource {
	return &base.TeamListResource[e2b.Secret, base.NoFilter]{
		ResourceConfig: base.ResourceConfig{TypeName: "_secret"},
		Description: "Lists the team's secrets for `terraform query` (every page), each with the identity of " +
			"`e2b_secret` (`secret_id`), so they can be imported into configuration. Metadata only: E2B never returns a " +
			"value. The configuration it generates shows `value = null # sensitive`: an imported secret keeps the value " +
			"E2B has until you set `value` (with `value_version`) to store a new one. E2B's secret list has no filter.",
		What:     "secrets",
		Fetch:    base.Unfiltered((*e2b.Client).ListSecrets),
		Display:  func(s e2b.Secret) string { return s.Name + " (" + s.SecretID + ")" },
		Identity: func(s e2b.Secret) map[string]string { return map[string]string{"secret_id": s.SecretID} },
		Values: func(s e2b.Secret) map[string]attr.Value {
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
		},
	}
}
