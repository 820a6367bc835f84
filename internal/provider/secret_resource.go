package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

var (
	_ resource.ResourceWithConfigure   = &secretResource{}
	_ resource.ResourceWithImportState = &secretResource{}
	_ resource.ResourceWithIdentity    = &secretResource{}
	_ resource.ResourceWithModifyPlan  = &secretResource{}
)

// NewSecretResource returns the e2b_secret resource.
func NewSecretResource() resource.Resource {
	return &secretResource{base.ResourceConfig{TypeName: "_secret"}}
}

// secretResource is a team secret that E2B's egress substitutes into the
// outgoing requests of sandboxes; its value never reaches the state.
type secretResource struct {
	base.ResourceConfig
}

type secretModel struct {
	ID             types.String      `tfsdk:"id"`
	SecretID       types.String      `tfsdk:"secret_id"`
	Name           types.String      `tfsdk:"name"`
	Value          types.String      `tfsdk:"value"`
	ValueVersion   types.Int64       `tfsdk:"value_version"`
	SensitiveValue types.String      `tfsdk:"sensitive_value"`
	Metadata       types.Map         `tfsdk:"metadata"`
	CurrentVersion types.Int64       `tfsdk:"current_version"`
	CreatedAt      timetypes.RFC3339 `tfsdk:"created_at"`
	UpdatedAt      timetypes.RFC3339 `tfsdk:"updated_at"`
}

// secretIdentity is the resource identity: the secret's ID.
type secretIdentity struct {
	SecretID types.String `tfsdk:"secret_id"`
}

var canonicalSecretName = regexp.MustCompile(`^[a-z0-9_-]{1,128}$`)

func (r *secretResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A team secret. Sandbox processes never see its value: a header of `e2b_sandbox`'s " +
			"`network.rules` holds the placeholder `provider::e2b::secret_ref(name)` (`${e2b.secrets.<name>}`), and E2B's " +
			"egress proxy sets that header, with the secret's current value, on the sandbox's requests to the rule's " +
			"domain (the way E2B documents, with `Secret.fill` in its SDK). Requests to other domains carry nothing. " +
			"Set the value with the write-only `value` (never stored in plan or state; bump `value_version` to send a " +
			"new one) or, on Terraform and OpenTofu versions without write-only attributes, with `sensitive_value` " +
			"(stored in state, marked sensitive). Every change stores a new version in place, and later requests carry it " +
			"without touching the sandbox.\n\n" +
			"**What E2B documents, and what it does not.** Rules apply to the sandbox's outgoing HTTP and HTTPS requests. " +
			"E2B's published material does not say that a placeholder a sandbox process writes into its own request is " +
			"replaced: do not rely on that. The repository's emulator applies rules to plain-HTTP requests only (HTTPS " +
			"would need TLS interception).\n\n" +
			"**When E2B's answer to the create is lost** (a gateway's error, a cut connection, an interrupted run), " +
			"the provider recognises its secret exactly: the create stores a random create token in the secret's " +
			"metadata (key `" + e2b.IdempotencyMetadataKey + "`, never shown in `metadata`), and the secret of the name " +
			"is recorded only when it carries this create's token. A secret that already had the name is never taken " +
			"over: the apply fails naming it and how to import it.",
		Attributes: map[string]schema.Attribute{
			"id":        base.ComputedString("Same as `secret_id`.", stable),
			"secret_id": base.ComputedString("ID of the secret (`sec_…`).", stable),
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the secret, unique in the team: 1 to 128 lower-case letters, digits, `_` or `-` " +
					"(E2B stores names in lower case), not starting with `sec_`. Changing it replaces the secret.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{
					stringvalidator.RegexMatches(canonicalSecretName, "must be 1 to 128 lower-case letters, digits, '_' or '-' (E2B stores names in lower case)"),
					stringvalidator.RegexMatches(regexp.MustCompile(`^(?:.{0,3}$|[^s]|s[^e]|se[^c]|sec[^_])`), `must not start with "sec_", which E2B reserves for secret IDs`),
				},
			},
			"value": schema.StringAttribute{
				MarkdownDescription: "The secret value, write-only: sent to E2B on create and whenever `value_version` " +
					"changes, never stored in plan or state. Needs Terraform 1.11+ or OpenTofu 1.11+; elsewhere use " +
					"`sensitive_value`. This or `sensitive_value` is required to create the secret and for every change; " +
					"an imported secret left as it is needs neither (E2B keeps its value).",
				Optional:  true,
				WriteOnly: true,
				Sensitive: true,
				Validators: []validator.String{
					stringvalidator.ConflictsWith(path.MatchRoot("sensitive_value")),
					stringvalidator.AlsoRequires(path.MatchRoot("value_version")),
					stringvalidator.LengthAtLeast(1),
				},
			},
			"value_version": schema.Int64Attribute{
				MarkdownDescription: "Any number that you change whenever `value` changes: Terraform cannot compare a " +
					"write-only value, so a new `value_version` is what sends the new value (a new version, in place).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("value"))},
			},
			"sensitive_value": schema.StringAttribute{
				MarkdownDescription: "The secret value for Terraform and OpenTofu versions without write-only attributes. " +
					"Stored in state (marked sensitive); prefer `value`. A change stores a new version in place.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"metadata": schema.MapAttribute{
				MarkdownDescription: fmt.Sprintf("Your metadata of the secret: at most %d entries, keys up to %d bytes, values up "+
					"to %d bytes, %d bytes of keys and values in all. These are E2B's limits less what the provider's create token "+
					"takes: the create stores the key `%s` with a random value in the metadata, by which it recognises its "+
					"secret when E2B's answer is lost; the key is never shown here, and the next change drops it. A change "+
					"stores a new version (E2B updates metadata together with the value).",
					e2b.SecretMetadataUserEntries, e2b.SecretMetadataMaxKeyBytes, e2b.SecretMetadataMaxValueBytes,
					e2b.SecretMetadataUserMaxBytes, e2b.IdempotencyMetadataKey),
				Optional:    true,
				ElementType: types.StringType,
				Validators:  []validator.Map{secretMetadataValidator{}},
			},
			"current_version": schema.Int64Attribute{
				MarkdownDescription: "Version that sandboxes get: 1 after create, one more after every change.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the secret was created (RFC 3339).",
				Computed:            true,
				CustomType:          timetypes.RFC3339Type{},
				PlanModifiers:       stable,
			},
			"updated_at": schema.StringAttribute{
				MarkdownDescription: "When the secret last got a new version (RFC 3339).",
				Computed:            true,
				CustomType:          timetypes.RFC3339Type{},
				PlanModifiers:       stable,
			},
		},
	}
}

func (r *secretResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"secret_id": identityschema.StringAttribute{RequiredForImport: true, Description: "Secret ID (`sec_…`)."},
		},
	}
}

// ModifyPlan refuses a create or a change without a value (E2B stores every
// change as a new version with its value; an imported secret left as it is
// needs none), and marks the version and update time unknown when a change
// will store a new version.
func (r *secretResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan, state secretModel
	var value types.String
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("value"), &value)...)
	if resp.Diagnostics.HasError() {
		return
	}
	hasValue := !value.IsNull() || !plan.SensitiveValue.IsNull()
	if req.State.Raw.IsNull() {
		if !hasValue {
			resp.Diagnostics.AddAttributeError(path.Root("value"), "Missing secret value",
				"A new secret needs its value: set value (with value_version) or sensitive_value.")
		}
		return
	}
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.ValueVersion.Equal(state.ValueVersion) && plan.SensitiveValue.Equal(state.SensitiveValue) && plan.Metadata.Equal(state.Metadata) {
		return
	}
	if !hasValue {
		resp.Diagnostics.AddAttributeError(path.Root("value"), "Missing secret value",
			"E2B stores a change of a secret (also of its metadata) as a new version with its value: set value "+
				"(with value_version) or sensitive_value. An imported secret needs none while it is left as it is.")
		return
	}
	plan.CurrentVersion = types.Int64Unknown()
	plan.UpdatedAt = timetypes.NewRFC3339Unknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// secretMetadataValidator applies E2B's metadata limits at plan time.
type secretMetadataValidator struct{}

func (secretMetadataValidator) Description(context.Context) string {
	return fmt.Sprintf("at most %d entries, keys up to %d bytes, values up to %d bytes, %d bytes in all, no key %s",
		e2b.SecretMetadataUserEntries, e2b.SecretMetadataMaxKeyBytes, e2b.SecretMetadataMaxValueBytes,
		e2b.SecretMetadataUserMaxBytes, e2b.IdempotencyMetadataKey)
}

func (v secretMetadataValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (secretMetadataValidator) ValidateMap(ctx context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	m := map[string]string{}
	for k, v := range req.ConfigValue.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return // checked again at apply
		}
		m[k] = s.ValueString()
	}
	if err := e2b.CheckSecretMetadata(m); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid secret metadata", err.Error()+".")
	}
}

// secretGetter reads an attribute (tfsdk.Config).
type secretGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

// secretValue is the value to send: the write-only one from the
// configuration, or the sensitive fallback.
func secretValue(ctx context.Context, cfg secretGetter, fallback types.String) (string, error) {
	var v types.String
	if d := cfg.GetAttribute(ctx, path.Root("value"), &v); d.HasError() {
		return "", fmt.Errorf("read value: %v", d)
	}
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueString(), nil
	}
	if !fallback.IsNull() && !fallback.IsUnknown() {
		return fallback.ValueString(), nil
	}
	return "", fmt.Errorf("set value (with value_version) or sensitive_value")
}

func (r *secretResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan secretModel
	client, value, meta, ok := r.planned(ctx, req.Plan, req.Config, &plan, "", &resp.Diagnostics)
	if !ok {
		return
	}
	s, err := client.CreateSecret(ctx, plan.Name.ValueString(), value, meta)
	if !secretCreate.Settled(&resp.Diagnostics, "Could not create secret "+plan.Name.ValueString(), err) {
		return
	}
	plan.save(ctx, s, &resp.State, resp.Identity, &resp.Diagnostics)
}

// planned reads the plan into m and returns the client, the value to store and the
// metadata; ok is false when diags say why not. why comes before the error of a missing value.
func (r *secretResource) planned(ctx context.Context, plan tfsdk.Plan, config tfsdk.Config, m *secretModel, why string,
	diags *diag.Diagnostics) (client *e2b.Client, value string, meta map[string]string, ok bool) {
	client, ok = base.ModelAndClient(ctx, plan.Get, m, r.Data, diags)
	if !ok {
		return nil, "", nil, false
	}
	value, err := secretValue(ctx, config, m.SensitiveValue)
	if err != nil {
		diags.AddAttributeError(path.Root("value"), "Missing secret value", why+err.Error())
		return nil, "", nil, false
	}
	meta, d := convert.StringMapFrom(ctx, m.Metadata)
	diags.Append(d...)
	return client, value, meta, true
}

// save records E2B's answer in state and identity.
func (m *secretModel) save(ctx context.Context, s *e2b.Secret, state *tfsdk.State, identity *tfsdk.ResourceIdentity,
	diags *diag.Diagnostics) {
	m.apply(s)
	diags.Append(state.Set(ctx, m)...)
	diags.Append(identity.Set(ctx, secretIdentity{SecretID: m.SecretID})...)
}

func (r *secretResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state secretModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	key := state.SecretID.ValueString()
	if key == "" { // import by ID or name
		key = state.ID.ValueString()
	}
	s, err := client.GetSecret(ctx, key)
	if e2b.IsNotFound(err) {
		base.RemoveGone(ctx, resp, "Secret no longer exists",
			fmt.Sprintf("Secret %q was not found; it was removed from state.", key),
			secretIdentity{SecretID: types.StringValue(key)})
		return
	}
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read secret "+key, err)
		return
	}
	state.save(ctx, s, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *secretResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan secretModel
	client, value, meta, ok := r.planned(ctx, req.Plan, req.Config, &plan,
		"E2B stores a change of a secret as a new version with its value. ", &resp.Diagnostics)
	if !ok {
		return
	}
	s, err := client.UpdateSecret(ctx, plan.SecretID.ValueString(), value, meta)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not update secret "+plan.Name.ValueString(), err)
		return
	}
	plan.save(ctx, s, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *secretResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state secretModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := client.DeleteSecret(ctx, state.SecretID.ValueString()); err != nil && !e2b.IsNotFound(err) {
		base.AddClientError(&resp.Diagnostics, "Could not delete secret "+state.Name.ValueString(), err)
	}
}

// secretCreate says how a secret is named and imported, for lost creates.
var secretCreate = base.KeptCreate{Kind: "secret", Attr: path.Root("name"), ImportID: func(id string) string { return id }}

// ImportState accepts the secret's ID or its name, or the identity. The
// value cannot be imported: the next apply with a value_version stores it as
// a new version.
func (r *secretResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("secret_id"), req, resp)
}

// apply copies E2B's answer; an empty metadata map stays null when unset.
func (m *secretModel) apply(s *e2b.Secret) {
	m.ID = types.StringValue(s.SecretID)
	m.SecretID = types.StringValue(s.SecretID)
	m.Name = types.StringValue(s.Name)
	m.Value = types.StringNull() // write-only: never stored
	m.CurrentVersion = types.Int64Value(s.CurrentVersion)
	m.CreatedAt = timetypes.NewRFC3339TimeValue(s.CreatedAt)
	m.UpdatedAt = timetypes.NewRFC3339TimeValue(s.UpdatedAt)
	if len(s.Metadata) > 0 || !m.Metadata.IsNull() {
		m.Metadata = convert.StringMapValue(s.Metadata)
	}
}
