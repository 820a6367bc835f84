package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// NewSecretDataSource returns the e2b_secret data source: metadata only, never a value.
func NewSecretDataSource() datasource.DataSource {
	return &objectDataSource{
		typeSuffix: "secret", kind: "secret", idAttr: "secret_id",
		description: "One of the team's secrets, by ID or by name: metadata only, E2B never returns values.",
		nameDesc:    "Name of the secret (E2B keeps names in lower case). Exactly one of `secret_id` and `name` is set.",
		attributes:  secretAttributes,
		lookup: func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error) {
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
