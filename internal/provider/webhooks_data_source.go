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

// NewWebhooksDataSource returns the e2b_webhooks data source: the team's
// lifecycle webhooks (never secrets).
func NewWebhooksDataSource() datasource.DataSource {
	return &base.ListDataSource[e2b.Webhook]{
		TypeSuffix:  "webhooks",
		Description: "The team's sandbox lifecycle webhooks, oldest first. Signature secrets are never returned.",
		Attributes:  webhookAttributes,
		Fetch:       func(ctx context.Context, c *e2b.Client) ([]e2b.Webhook, error) { return c.ListWebhooks(ctx) },
		Attrs:       webhookAttrs,
	}
}

// webhookAttrs is a webhook as the attributes of webhookAttributes.
func webhookAttrs(w e2b.Webhook) map[string]attr.Value {
	return map[string]attr.Value{
		"id": types.StringValue(w.WebhookID), "name": types.StringValue(w.Name), "url": types.StringValue(w.URL),
		"enabled": types.BoolValue(w.Enabled), "events": convert.StringSetValue(w.Events),
		"created_at": timetypes.NewRFC3339TimeValue(w.CreatedAt),
	}
}

// webhookAttributes are the attributes of one webhook, in the list and in the single-object data source.
func webhookAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":         schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the webhook."},
		"name":       schema.StringAttribute{Computed: true, MarkdownDescription: "Display name."},
		"url":        schema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "Where events are posted (sensitive: it may carry a token)."},
		"enabled":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether events are delivered."},
		"events":     schema.SetAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Subscribed event types."},
		"created_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "Registration time (RFC 3339)."},
	}
}
