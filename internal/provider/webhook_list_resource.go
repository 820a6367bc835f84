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
	_ list.ListResource              = &webhookListResource{}
	_ list.ListResourceWithConfigure = &webhookListResource{}
)

// NewWebhookListResource returns the list resource for e2b_webhook
// (`terraform query`, Terraform 1.14 and later).
func NewWebhookListResource() list.ListResource { return &webhookListResource{} }

// webhookListResource lists the team's webhooks with the identity of e2b_webhook.
type webhookListResource struct {
	data *ProviderData
}

func (l *webhookListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook"
}

func (l *webhookListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's lifecycle webhooks for `terraform query`, each with the identity of " +
			"`e2b_webhook` (`webhook_id`), so they can be imported into configuration. The configuration it generates " +
			"shows the sensitive `url` and the write-only signature secret as `null # sensitive`: an imported webhook " +
			"keeps the URL and secret E2B has until you set them. E2B's webhook list has no filter.",
	}
}

func (l *webhookListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

func (l *webhookListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	client, diags := l.data.Client()
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list webhooks", func() ([]e2b.Webhook, error) { return client.ListWebhooks(ctx) },
		func(wh e2b.Webhook) list.ListResult {
			display := wh.WebhookID
			if wh.Name != "" {
				display = wh.Name + " (" + wh.WebhookID + ")"
			}
			return listResult(ctx, req, display, map[string]string{"webhook_id": wh.WebhookID}, func() map[string]attr.Value {
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
			})
		})
}
