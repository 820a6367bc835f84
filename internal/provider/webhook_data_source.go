package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewWebhookDataSource returns the e2b_webhook data source (never its signature secret).
func NewWebhookDataSource() datasource.DataSource {
	return &base.ObjectDataSource{
		TypeSuffix: "webhook", Kind: "webhook", IDAttr: "id",
		Description: "One of the team's sandbox lifecycle webhooks, by ID or by name. Its signature secret is never returned.",
		NameDesc: "Display name of the webhook. E2B does not keep names unique: a name that several webhooks " +
			"have is an error (use `id`). Exactly one of `id` and `name` is set.",
		Attributes: webhookAttributes,
		Lookup: func(ctx context.Context, c *e2b.Client, id, name string) (map[string]attr.Value, error) {
			if id != "" {
				w, err := c.GetWebhook(ctx, id)
				if e2b.IsNotFound(err) {
					return nil, nil
				}
				if err != nil {
					return nil, err
				}
				return webhookAttrs(*w), nil
			}
			list, err := c.ListWebhooks(ctx)
			if err != nil {
				return nil, err
			}
			var found []e2b.Webhook
			for _, w := range list {
				if w.Name == name {
					found = append(found, w)
				}
			}
			switch len(found) {
			case 0:
				return nil, nil
			case 1:
				return webhookAttrs(found[0]), nil
			}
			return nil, fmt.Errorf("%d webhooks are named %q (%s and %s, ...); select one by id", len(found), name, found[0].WebhookID, found[1].WebhookID)
		},
	}
}
