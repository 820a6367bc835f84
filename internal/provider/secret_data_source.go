package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewSecretDataSource returns the e2b_secret data source: metadata only, never a value.
func NewSecretDataSource() datasource.DataSource {
	return &base.ObjectDataSource{
		TypeSuffix: "secret", Kind: "secret", IDAttr: "secret_id",
		Description: "One of the team's secrets, by ID or by name: metadata only, E2B never returns values.",
		NameDesc:    "Name of the secret (E2B keeps names in lower case). Exactly one of `secret_id` and `name` is set.",
		Attributes:  secretAttributes,
		Lookup: func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error) {
			key := id
			if key == "" {
				key = name
			}
			s, err := c.GetSecret(ctx, key) // E2B reads a secret by ID or by name
			switch {
			case e2b.IsNotFound(err):
				return nil, nil
			case err != nil:
				return nil, err
			case id != "" && s.SecretID != id:
				return nil, nil // a name given as the ID
			}
			return secretAttrs(*s), nil
		},
	}
}
