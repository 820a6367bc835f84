package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ resource.ResourceWithConfigure   = &webhookResource{}
	_ resource.ResourceWithImportState = &webhookResource{}
	_ resource.ResourceWithIdentity    = &webhookResource{}
	_ resource.ResourceWithModifyPlan  = &webhookResource{}
)

// NewWebhookResource returns the e2b_webhook resource.
func NewWebhookResource() resource.Resource {
	return &webhookResource{base.ResourceConfig{TypeName: "_webhook"}}
}

// webhookResource is a lifecycle webhook: E2B posts signed sandbox events to it.
type webhookResource struct {
	base.ResourceConfig
}

type webhookModel struct {
	ID                       types.String      `tfsdk:"id"`
	Name                     types.String      `tfsdk:"name"`
	URL                      types.String      `tfsdk:"url"`
	Events                   types.Set         `tfsdk:"events"`
	Enabled                  types.Bool        `tfsdk:"enabled"`
	SignatureSecret          types.String      `tfsdk:"signature_secret"`
	SignatureSecretVersion   types.Int64       `tfsdk:"signature_secret_version"`
	SensitiveSignatureSecret types.String      `tfsdk:"sensitive_signature_secret"`
	CreatedAt                timetypes.RFC3339 `tfsdk:"created_at"`
}

// webhookIdentity is the resource identity: the webhook's ID.
type webhookIdentity struct {
	WebhookID types.String `tfsdk:"webhook_id"`
}

func (r *webhookResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A sandbox lifecycle webhook: E2B posts every subscribed event of the team's sandboxes to " +
			"`url`, signed with the signature secret (header `e2b-signature`: unpadded base64 of " +
			"`sha256(secret + body)`), and retries a failed delivery up to 3 times, 10 seconds apart. The secret " +
			"is write-only (`signature_secret` with `signature_secret_version`) or, on Terraform and OpenTofu " +
			"versions without write-only attributes, `sensitive_signature_secret`. Everything changes in place.\n\n" +
			"**When E2B's answer to the create is lost** (a gateway's error, a cut connection, an interrupted run): " +
			"E2B's webhooks have no unique name and nothing a client can mark them with, so the provider lists the " +
			"team's webhooks before registering one. Afterwards it records the one new webhook with this name, `url`, " +
			"`events` and `enabled`, and never one that existed before. When several new webhooks share the name and " +
			"URL it cannot tell which is this run's and fails naming them (import the one to keep, delete the " +
			"others). It waits up to 75 seconds (E2B ends every request after 70) before it concludes that the create " +
			"made nothing and registers again. A webhook identical in all four that someone else registers at the " +
			"same moment as a lost create cannot be told apart from the provider's.",
		Attributes: map[string]schema.Attribute{
			"id": base.ComputedString("ID of the webhook.", stable),
			"name": schema.StringAttribute{
				MarkdownDescription: "Display name, not empty.",
				Optional:            true,
				Validators:          validators.WebhookName(),
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "Where E2B posts the events: an absolute `http://` or `https://` URL, which may have " +
					"a query (such as a token your endpoint checks). Sensitive, since it can carry such a token. Required to " +
					"register a webhook; an imported webhook may leave it out to keep the URL E2B has (configuration that " +
					"`terraform query -generate-config-out` writes shows a sensitive value as `null`).",
				Optional:      true,
				Computed:      true,
				Sensitive:     true,
				Validators:    []validator.String{validators.WebhookURL()},
				PlanModifiers: stable,
			},
			"events": schema.SetAttribute{
				MarkdownDescription: fmt.Sprintf("Event types to deliver, at least one of %s.", quotedList(e2b.SandboxEventTypes)),
				Required:            true,
				ElementType:         types.StringType,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.OneOf(e2b.SandboxEventTypes...)),
				},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether events are delivered. Default `true`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
			},
			"signature_secret": schema.StringAttribute{
				MarkdownDescription: "Secret that signs the deliveries, write-only: sent on create and whenever " +
					"`signature_secret_version` changes, never stored. Needs Terraform 1.11+ or OpenTofu 1.11+; " +
					"elsewhere use `sensitive_signature_secret`.",
				Optional:  true,
				WriteOnly: true,
				Sensitive: true,
				Validators: []validator.String{
					stringvalidator.ConflictsWith(path.MatchRoot("sensitive_signature_secret")),
					stringvalidator.AlsoRequires(path.MatchRoot("signature_secret_version")),
					stringvalidator.LengthAtLeast(1),
				},
			},
			"signature_secret_version": schema.Int64Attribute{
				MarkdownDescription: "Any number that you change whenever `signature_secret` changes, to send the new secret.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("signature_secret"))},
			},
			"sensitive_signature_secret": schema.StringAttribute{
				MarkdownDescription: "The signature secret for Terraform and OpenTofu versions without write-only " +
					"attributes: stored in state, marked sensitive. Prefer `signature_secret`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the webhook was registered (RFC 3339).",
				Computed:            true,
				CustomType:          timetypes.RFC3339Type{},
				PlanModifiers:       stable,
			},
		},
	}
}

func (r *webhookResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"webhook_id": identityschema.StringAttribute{RequiredForImport: true, Description: "Webhook ID."},
		},
	}
}

// ModifyPlan refuses, at plan, a new webhook without its URL or signature
// secret; an imported one needs neither while it keeps E2B's.
func (r *webhookResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() {
		return
	}
	var url, secret, sensitive types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("url"), &url)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("signature_secret"), &secret)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_signature_secret"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if url.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("url"), "Missing webhook URL",
			"A new webhook needs the url E2B posts the events to.")
	}
	if secret.IsNull() && sensitive.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("signature_secret"), "Missing signature secret",
			"A new webhook needs its signature secret: set signature_secret (with signature_secret_version) or sensitive_signature_secret.")
	}
}

// input builds the webhook configuration; withSecret adds the secret. ok is false, with an error
// on signature_secret in diags, when it cannot.
func (m *webhookModel) input(ctx context.Context, cfg secretGetter, withSecret bool, diags *diag.Diagnostics) (in e2b.WebhookInput, ok bool) {
	invalid := func(format string, a ...any) (e2b.WebhookInput, bool) {
		diags.AddAttributeError(path.Root("signature_secret"), "Invalid webhook", fmt.Sprintf(format, a...))
		return in, false
	}
	events, d := convert.StringSetFrom(ctx, m.Events)
	if d.HasError() {
		return invalid("events: %v", d)
	}
	in = e2b.WebhookInput{Name: m.Name.ValueStringPointer(), URL: m.URL.ValueStringPointer(), Enabled: m.Enabled.ValueBoolPointer(), Events: events}
	if in.Name == nil {
		empty := ""
		in.Name = &empty
	}
	if withSecret {
		var wo types.String
		if d := cfg.GetAttribute(ctx, path.Root("signature_secret"), &wo); d.HasError() {
			return invalid("signature_secret: %v", d)
		}
		secret := wo
		if secret.IsNull() {
			secret = m.SensitiveSignatureSecret
		}
		if secret.IsNull() || secret.IsUnknown() {
			return invalid("set signature_secret (with signature_secret_version) or sensitive_signature_secret")
		}
		in.SignatureSecret = secret.ValueStringPointer()
	}
	return in, true
}

func (r *webhookResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan webhookModel
	client, ok := base.ModelAndClient(ctx, req.Plan.Get, &plan, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	in, ok := plan.input(ctx, req.Config, true, &resp.Diagnostics)
	if !ok {
		return
	}
	wh, err := client.CreateWebhook(ctx, in)
	if !webhookCreate.Settled(&resp.Diagnostics, "Could not register webhook", err) {
		return
	}
	plan.save(ctx, wh, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *webhookResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state webhookModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	wh, err := client.GetWebhook(ctx, state.ID.ValueString())
	if e2b.IsNotFound(err) {
		base.RemoveGone(ctx, resp, "Webhook no longer exists",
			fmt.Sprintf("Webhook %q was not found; it was removed from state.", state.ID.ValueString()),
			webhookIdentity{WebhookID: state.ID})
		return
	}
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read webhook "+state.ID.ValueString(), err)
		return
	}
	state.save(ctx, wh, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *webhookResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state webhookModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	newSecret := !plan.SignatureSecretVersion.Equal(state.SignatureSecretVersion) ||
		!plan.SensitiveSignatureSecret.Equal(state.SensitiveSignatureSecret)
	in, ok := plan.input(ctx, req.Config, newSecret, &resp.Diagnostics)
	if !ok {
		return
	}
	wh, err := client.UpdateWebhook(ctx, state.ID.ValueString(), in)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not update webhook "+state.ID.ValueString(), err)
		return
	}
	plan.save(ctx, wh, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *webhookResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state webhookModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := client.DeleteWebhook(ctx, state.ID.ValueString()); err != nil && !e2b.IsNotFound(err) {
		base.AddClientError(&resp.Diagnostics, "Could not delete webhook "+state.ID.ValueString(), err)
	}
}

// webhookCreate says how a webhook is imported, for lost creates.
var webhookCreate = base.KeptCreate{Kind: "webhook", Attr: path.Empty(), ImportID: func(id string) string { return id }}

// ImportState takes the webhook ID or the identity. The secret cannot be
// read back: give it in the configuration; the next apply with a secret
// version sends it.
func (r *webhookResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("webhook_id"), req, resp)
}

// save records in m what E2B answered for the webhook, then m and its identity in state.
func (m *webhookModel) save(ctx context.Context, wh *e2b.Webhook, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	m.apply(wh)
	diags.Append(state.Set(ctx, m)...)
	diags.Append(identity.Set(ctx, webhookIdentity{WebhookID: m.ID})...)
}

func (m *webhookModel) apply(wh *e2b.Webhook) {
	m.ID = types.StringValue(wh.WebhookID)
	if wh.Name != "" || !m.Name.IsNull() {
		m.Name = types.StringValue(wh.Name)
	}
	m.URL = types.StringValue(wh.URL)
	m.Enabled = types.BoolValue(wh.Enabled)
	m.Events = convert.StringSetValue(wh.Events)
	m.SignatureSecret = types.StringNull()
	m.CreatedAt = timetypes.NewRFC3339TimeValue(wh.CreatedAt)
}

// quotedList renders values as `a`, `b` and `c` for descriptions.
func quotedList(values []string) string {
	out := ""
	for i, v := range values {
		switch {
		case i == 0:
		case i == len(values)-1:
			out += " and "
		default:
			out += ", "
		}
		out += "`" + v + "`"
	}
	return out
}
