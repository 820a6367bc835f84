package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ datasource.DataSource              = &webhooksDataSource{}
	_ datasource.DataSourceWithConfigure = &webhooksDataSource{}
)

// NewWebhooksDataSource returns the e2b_webhooks data source.
func NewWebhooksDataSource() datasource.DataSource { return &webhooksDataSource{} }

// webhooksDataSource lists the team's lifecycle webhooks (never secrets).
type webhooksDataSource struct {
	data *ProviderData
}

type webhooksDataSourceModel struct {
	Webhooks types.List `tfsdk:"webhooks"`
}

var webhookAttrTypes = map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "url": types.StringType, "enabled": types.BoolType,
	"events": types.SetType{ElemType: types.StringType}, "created_at": timetypes.RFC3339Type{},
}

func (d *webhooksDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhooks"
}

func (d *webhooksDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The team's sandbox lifecycle webhooks, oldest first. Signature secrets are never returned.",
		Attributes: map[string]schema.Attribute{
			"webhooks": schema.ListNestedAttribute{
				MarkdownDescription: "The webhooks.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: webhookAttributes()},
			},
		},
	}
}

func (d *webhooksDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *webhooksDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	client, diags := d.data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := client.ListWebhooks(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Could not list webhooks", err)
		return
	}
	elems := make([]attr.Value, 0, len(list))
	for _, w := range list {
		elems = append(elems, types.ObjectValueMust(webhookAttrTypes, webhookAttrs(w)))
	}
	model := webhooksDataSourceModel{Webhooks: types.ListValueMust(types.ObjectType{AttrTypes: webhookAttrTypes}, elems)}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// webhookAttrs is a webhook as the attributes of webhookAttrTypes.
func webhookAttrs(w e2b.Webhook) map[string]attr.Value {
	return map[string]attr.Value{
		"id": types.StringValue(w.WebhookID), "name": types.StringValue(w.Name), "url": types.StringValue(w.URL),
		"enabled": types.BoolValue(w.Enabled), "events": stringSetValue(w.Events),
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
