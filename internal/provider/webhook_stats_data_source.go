package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure      = &webhookStatsDataSource{}
	_ datasource.DataSourceWithValidateConfig = &webhookStatsDataSource{}
)

// NewWebhookStatsDataSource returns the e2b_webhook_stats data source.
func NewWebhookStatsDataSource() datasource.DataSource {
	return &webhookStatsDataSource{base.DataSourceConfig{TypeName: "_webhook_stats"}}
}

// webhookStatsDataSource reads a webhook's delivery stats over a time range.
type webhookStatsDataSource struct {
	base.DataSourceConfig
}

type webhookStatsModel struct {
	WebhookID       types.String           `tfsdk:"webhook_id"`
	Start           timetypes.RFC3339      `tfsdk:"start"`
	End             timetypes.RFC3339      `tfsdk:"end"`
	Total           types.Int64            `tfsdk:"total"`
	Failed          types.Int64            `tfsdk:"failed"`
	DurationMinimum customtypes.GoDuration `tfsdk:"duration_minimum"`
	DurationAverage customtypes.GoDuration `tfsdk:"duration_average"`
	DurationMaximum customtypes.GoDuration `tfsdk:"duration_maximum"`
	Buckets         types.List             `tfsdk:"buckets"`
}

// deliveryDurationAttributes are the duration figures of a set of attempts.
func deliveryDurationAttributes(of string) map[string]schema.Attribute {
	attr := func(what string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, CustomType: customtypes.GoDurationType{}, Validators: []validator.String{validators.GoDurationSyntax()},
			MarkdownDescription: what + " duration of the attempts " + of + " (Go duration; 0s without attempts)."}
	}
	return map[string]schema.Attribute{
		"duration_minimum": attr("Shortest"), "duration_average": attr("Average"), "duration_maximum": attr("Longest"),
	}
}

func webhookStatsBucketAttributes() map[string]schema.Attribute {
	attrs := deliveryDurationAttributes("in the bucket")
	attrs["start"] = base.ComputedDataSourceTime("Start of the bucket (RFC 3339).")
	attrs["total"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Attempts in the bucket."}
	attrs["failed"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Failed attempts in the bucket."}
	return attrs
}

var webhookStatsBucketAttrTypes = convert.NestedAttrTypes(webhookStatsBucketAttributes())

func durationValues(d e2b.DeliveryDurations) map[string]attr.Value {
	return map[string]attr.Value{
		"duration_minimum": customtypes.DurationValue(d.Minimum), "duration_average": customtypes.DurationValue(d.Average),
		"duration_maximum": customtypes.DurationValue(d.Maximum),
	}
}

func (d *webhookStatsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := deliveryDurationAttributes("in the range")
	attrs["webhook_id"] = schema.StringAttribute{Required: true, MarkdownDescription: "The webhook (`e2b_webhook`'s `id`).",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	attrs["start"] = schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "Start of the range, inclusive (RFC 3339). Default: E2B's, 24 hours before `end`."}
	attrs["end"] = schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "End of the range, exclusive (RFC 3339). Default: now."}
	attrs["total"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Delivery attempts in the range."}
	attrs["failed"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Failed delivery attempts in the range."}
	attrs["buckets"] = base.ComputedDataSourceList("The range in time buckets, oldest first, as E2B divides it.", webhookStatsBucketAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook's delivery stats over a time range: attempts, failed attempts and their durations, " +
			"overall and per time bucket. `failed` above 0 says the endpoint is failing; `e2b_webhook_deliveries` says why.",
		Attributes: attrs,
	}
}

// ValidateConfig refuses a time range that ends before it starts, naming end.
func (d *webhookStatsDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m webhookStatsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateTimeRange(m.Start, m.End, &resp.Diagnostics)
}

func (d *webhookStatsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m webhookStatsModel
	client := d.ConfigAndClient(ctx, req, resp, &m)
	if client == nil {
		return
	}
	start, end := timeOrZero(m.Start), timeOrZero(m.End)
	if resp.Diagnostics.HasError() {
		return
	}
	st, err := client.GetWebhookStats(ctx, m.WebhookID.ValueString(), start, end)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read webhook delivery stats", err)
		return
	}
	m.Total, m.Failed = types.Int64Value(st.Total), types.Int64Value(st.Failed)
	m.DurationMinimum, m.DurationAverage, m.DurationMaximum = customtypes.DurationValue(st.Durations.Minimum), customtypes.DurationValue(st.Durations.Average), customtypes.DurationValue(st.Durations.Maximum)
	m.Buckets = base.ObjectList(webhookStatsBucketAttrTypes, st.Buckets, func(b e2b.WebhookStatsBucket) map[string]attr.Value {
		v := durationValues(b.Durations)
		v["start"] = timetypes.NewRFC3339TimeValue(b.Start)
		v["total"], v["failed"] = types.Int64Value(b.Total), types.Int64Value(b.Failed)
		return v
	})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
