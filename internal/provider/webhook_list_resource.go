package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// NewWebhookListResource returns the list resource for e2b_webhook: the
// team's webhooks with the identity of e2b_webhook.
func NewWebhookListResource() list.ListResource {
	return &base.TeamListResource[e2b.Webhook, base.NoFilter]{
		ResourceConfig: base.ResourceConfig{TypeName: "_webhook"},
		Description: "Lists the team's lifecycle webhooks for `terraform query`, each with the identity of " +
			"`e2b_webhook` (`webhook_id`), so they can be imported into configuration. The configuration it generates " +
			"shows the sensitive `url` and the write-only signature secret as `null # sensitive`: an imported webhook " +
			"keeps the URL and secret E2B has until you set them. E2B's webhook list has no filter.",
		What:  "webhooks",
		Fetch: base.Unfiltered((*e2b.Client).ListWebhooks),
		Display: func(wh e2b.Webhook) string {
			if wh.Name == "" {
				return wh.WebhookID
			}
			return wh.Name + " (" + wh.WebhookID + ")"
		},
		Identity: func(wh e2b.Webhook) map[string]string { return map[string]string{"webhook_id": wh.WebhookID} },
		Values: func(wh e2b.Webhook) map[string]attr.Value {
			m := webhookModel{Name: types.StringNull()}
			m.apply(&wh)
			return map[string]attr.Value{
				"id":         m.ID,
				"name":       m.Name,
				"url":        m.URL,
				"events":     m.Events,
				"enabled":    m.Enabled,
				"created_at": m.CreatedAt,
			}
		},
	}
}
