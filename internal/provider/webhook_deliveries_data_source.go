package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure      = &webhookDeliveriesDataSource{}
	_ datasource.DataSourceWithValidateConfig = &webhookDeliveriesDataSource{}
)

// NewWebhookDeliveriesDataSource returns the e2b_webhook_deliveries data source.
func NewWebhookDeliveriesDataSource() datasource.DataSource {
	return &webhookDeliveriesDataSource{base.DataSourceConfig{TypeName: "_webhook_deliveries"}}
}

// webhookDeliveriesDataSource reads a webhook's delivery history: the
// events E2B delivered to it and every attempt, failed ones with why.
type webhookDeliveriesDataSource struct {
	base.DataSourceConfig
}

type webhookDeliveriesModel struct {
	WebhookID      types.String      `tfsdk:"webhook_id"`
	Statuses       types.Set         `tfsdk:"statuses"`
	EventTypes     types.Set         `tfsdk:"event_types"`
	Start          timetypes.RFC3339 `tfsdk:"start"`
	End            timetypes.RFC3339 `tfsdk:"end"`
	Ascending      types.Bool        `tfsdk:"ascending"`
	PageSize       types.Int64       `tfsdk:"page_size"`
	Limit          types.Int64       `tfsdk:"limit"`
	Events         types.List        `tfsdk:"events"`
	Attempts       types.Int64       `tfsdk:"attempts"`
	FailedAttempts types.Int64       `tfsdk:"failed_attempts"`
}

// defaultDeliveryEvents is how many events are read when limit is not set.
const defaultDeliveryEvents = 100

var (
	deliveryAttemptAttrTypes = convert.NestedAttrTypes(deliveryAttemptAttributes())
	deliveryEventAttrTypes   = convert.NestedAttrTypes(deliveryEventAttributes())
)

func deliveryAttemptAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Delivery attempt ID (sent as the `e2b-delivery-id` header)."},
		"status": schema.StringAttribute{Computed: true, MarkdownDescription: "`success` or `failed`."},
		"error_class": schema.StringAttribute{Computed: true, MarkdownDescription: "Why it failed, as E2B classes it: `http_error` (answered outside 2xx), " +
			"`dns_error`, `timeout`, `transport_error`, `request_error`, `signature_error` or `canceled`. Null on success."},
		"error_message": schema.StringAttribute{Computed: true, MarkdownDescription: "E2B's message for a failure without a useful answer body, or null."},
		"response_status_code": schema.Int64Attribute{Computed: true,
			MarkdownDescription: "HTTP status the endpoint answered, or null when no answer came."},
		"response_body":    schema.StringAttribute{Computed: true, MarkdownDescription: "The answer's body as E2B truncated it, or null when no answer came."},
		"response_headers": schema.StringAttribute{Computed: true, MarkdownDescription: "The answer's headers as a JSON object, or null when no answer came."},
		"request_url": schema.StringAttribute{Computed: true, Sensitive: true,
			MarkdownDescription: "URL the attempt posted to. Sensitive, as `e2b_webhook`'s `url` is: its query may carry a token."},
		"request_headers": schema.StringAttribute{Computed: true,
			MarkdownDescription: "Request headers as a JSON object; E2B redacts sensitive values such as `e2b-signature`."},
		"request_body": schema.StringAttribute{Computed: true, MarkdownDescription: "The event JSON that was posted."},
		"duration": schema.StringAttribute{Computed: true, CustomType: customtypes.GoDurationType{}, Validators: []validator.String{validators.GoDurationSyntax()},
			MarkdownDescription: "How long the attempt took (Go duration, E2B counts whole milliseconds)."},
		"timestamp": base.ComputedDataSourceTime("When the attempt started (RFC 3339)."),
	}
}

func deliveryEventAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"event_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Lifecycle event ID."},
		"event_type": schema.StringAttribute{Computed: true, MarkdownDescription: "Event type, such as `sandbox.lifecycle.created`."},
		"sandbox_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The sandbox the event is about."},
		"delivered":  schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether an attempt listed succeeded."},
		"attempts":   base.ComputedDataSourceList("The attempts to deliver the event that match the filters, in the order made.", deliveryAttemptAttributes()),
	}
}

func (d *webhookDeliveriesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook's delivery history: the events E2B delivered to it, newest first unless `ascending`, " +
			"each with every attempt (E2B retries a failed one) and why an attempt failed. Filters apply to attempts; " +
			"an event is listed when one of its attempts matches. Shows from Terraform that an endpoint is failing.",
		Attributes: map[string]schema.Attribute{
			"webhook_id": schema.StringAttribute{Required: true, MarkdownDescription: "The webhook (`e2b_webhook`'s `id`).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"statuses": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only attempts with these statuses: `success`, `failed`. Default: both.",
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.OneOf(e2b.DeliveryStatuses...))}},
			"event_types": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only attempts delivering these event types. Default: every type.",
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.OneOf(e2b.SandboxEventTypes...))}},
			"start": schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "Only attempts made at or after this time (RFC 3339)."},
			"end": schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "Only attempts made before this time (RFC 3339)."},
			"ascending": schema.BoolAttribute{Optional: true, MarkdownDescription: "Oldest event first. Default `false` (newest first)."},
			"page_size": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Events per request to E2B, 1 to 100; the data source follows E2B's cursor until `limit`. Default: E2B's (25), or `limit` when smaller.",
				Validators:          []validator.Int64{int64validator.Between(1, e2b.WebhookDeliveryPageMax)}},
			"limit": schema.Int64Attribute{Optional: true, MarkdownDescription: "Most events to return, 1 to 10000. Default 100.",
				Validators: []validator.Int64{int64validator.Between(1, 10000)}},
			"events":          base.ComputedDataSourceList("The events, each with its attempts.", deliveryEventAttributes()),
			"attempts":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Attempts listed in `events`."},
			"failed_attempts": schema.Int64Attribute{Computed: true, MarkdownDescription: "Failed attempts listed in `events`."},
		},
	}
}

// ValidateConfig refuses a time range that ends before it starts, naming end.
func (d *webhookDeliveriesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m webhookDeliveriesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateTimeRange(m.Start, m.End, &resp.Diagnostics)
}

// validateTimeRange adds an error on end when both bounds are known and
// end is not after start.
func validateTimeRange(start, end timetypes.RFC3339, diags *diag.Diagnostics) {
	s, e := convert.OptionalTime(start), convert.OptionalTime(end) // nil unless known and valid: the type reports the rest
	if s != nil && e != nil && !s.Before(*e) {
		diags.AddAttributeError(path.Root("end"), "Invalid time range",
			"end ("+e.Format(time.RFC3339)+") must be after start ("+s.Format(time.RFC3339)+").")
	}
}

// timeOrZero is a known RFC 3339 value, or the zero time (no bound).
func timeOrZero(v timetypes.RFC3339) time.Time {
	if t := convert.OptionalTime(v); t != nil {
		return *t
	}
	return time.Time{}
}

func (d *webhookDeliveriesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m webhookDeliveriesModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	statuses, diags := convert.StringSetFrom(ctx, m.Statuses)
	resp.Diagnostics.Append(diags...)
	kinds, diags := convert.StringSetFrom(ctx, m.EventTypes)
	resp.Diagnostics.Append(diags...)
	q := e2b.WebhookDeliveryQuery{Statuses: statuses, EventTypes: kinds, Ascending: m.Ascending.ValueBool(),
		Start: timeOrZero(m.Start), End: timeOrZero(m.End),
		PageSize: int(m.PageSize.ValueInt64()), MaxEvents: defaultDeliveryEvents}
	if !m.Limit.IsNull() {
		q.MaxEvents = int(m.Limit.ValueInt64())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	groups, err := client.ListWebhookDeliveries(ctx, m.WebhookID.ValueString(), q)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not list webhook deliveries", err)
		return
	}
	var total, failed int64
	m.Events = base.ObjectList(deliveryEventAttrTypes, groups, func(g e2b.WebhookDeliveryGroup) map[string]attr.Value {
		delivered := false
		for _, a := range g.Attempts {
			total++
			if a.Status == e2b.DeliverySuccess {
				delivered = true
			} else {
				failed++
			}
		}
		return map[string]attr.Value{
			"event_id": types.StringValue(g.EventID), "event_type": types.StringValue(g.EventType),
			"sandbox_id": types.StringValue(g.SandboxID), "delivered": types.BoolValue(delivered),
			"attempts": base.ObjectList(deliveryAttemptAttrTypes, g.Attempts, deliveryAttemptValues),
		}
	})
	m.Attempts, m.FailedAttempts = types.Int64Value(total), types.Int64Value(failed)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// deliveryAttemptValues are an attempt's attributes; what E2B leaves out
// (no answer, no error) is null.
func deliveryAttemptValues(a e2b.WebhookDeliveryAttempt) map[string]attr.Value {
	answered := a.ResponseStatusCode != 0
	orNull := func(v string, known bool) types.String {
		if !known {
			return types.StringNull()
		}
		return types.StringValue(v)
	}
	code := types.Int64Null()
	if answered {
		code = types.Int64Value(int64(a.ResponseStatusCode))
	}
	return map[string]attr.Value{
		"id": types.StringValue(a.ID), "status": types.StringValue(a.Status),
		"error_class": orNull(a.ErrorClass, a.ErrorClass != ""), "error_message": orNull(a.ErrorMessage, a.ErrorMessage != ""),
		"response_status_code": code, "response_body": orNull(a.ResponseBody, answered),
		"response_headers": orNull(a.ResponseHeaders, answered), "request_url": types.StringValue(a.RequestURL),
		"request_headers": types.StringValue(a.RequestHeaders), "request_body": types.StringValue(a.RequestBody),
		"duration": customtypes.DurationValue(a.Duration), "timestamp": timetypes.NewRFC3339TimeValue(a.Timestamp),
	}
}
