package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/ephemeral/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
)

var (
	_ ephemeral.EphemeralResourceWithConfigure      = &sandboxEphemeralResource{}
	_ ephemeral.EphemeralResourceWithValidateConfig = &sandboxEphemeralResource{}
	_ ephemeral.EphemeralResourceWithRenew          = &sandboxEphemeralResource{}
	_ ephemeral.EphemeralResourceWithClose          = &sandboxEphemeralResource{}
)

const (
	// ephemeralSandboxLabel is the metadata key (value "true") that marks sandboxes opened by
	// the ephemeral resource, so that leftovers of a crashed run can be found.
	ephemeralSandboxLabel = "e2b-terraform-ephemeral"

	defaultEphemeralSandboxTimeout = 5 * time.Minute
	// maxRenewLead is how long before the sandbox's end it is renewed, at most; shorter
	// timeouts are renewed at half their length.
	maxRenewLead = time.Minute
	// closeTimeout bounds the kill on close: OpenTofu waits 10 s for a close to finish.
	closeTimeout = 8 * time.Second

	privateSandboxKey = "sandbox"
)

// NewSandboxEphemeralResource returns the e2b_sandbox ephemeral resource.
func NewSandboxEphemeralResource() ephemeral.EphemeralResource {
	return &sandboxEphemeralResource{base.EphemeralConfig{TypeName: "_sandbox"}}
}

// sandboxEphemeralResource opens a sandbox for one Terraform run: created on open, kept alive
// by renewals while the run needs it, killed on close.
type sandboxEphemeralResource struct {
	base.EphemeralConfig
}

type sandboxEphemeralModel struct {
	sandboxCreateOptions
	sandboxAccessResults

	Timeout    customtypes.GoDuration `tfsdk:"timeout"`
	Timeouts   timeouts.Value         `tfsdk:"timeouts"`
	Uploads    types.List             `tfsdk:"upload"`
	ID         types.String           `tfsdk:"id"`
	TemplateID types.String           `tfsdk:"template_id"`
}

// openSandbox is what Renew and Close need, kept in the run's private data (never in state).
type openSandbox struct {
	ID      string `json:"id"`
	Timeout int32  `json:"timeout"` // seconds
}

func (r *sandboxEphemeralResource) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	var cfg sandboxEphemeralModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.validate(ctx, nil, true, &resp.Diagnostics) // no iam here: identity placeholders have no token
	validateUploads(ctx, cfg.Uploads, &resp.Diagnostics)
}

func (r *sandboxEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m sandboxEphemeralModel
	client, ok := base.ModelAndClient(ctx, req.Config.Get, &m, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	openTimeout, diags := m.Timeouts.Open(ctx, defaultSandboxCreateTimeout)
	resp.Diagnostics.Append(diags...)
	life := customtypes.DurationOr(m.Timeout, defaultEphemeralSandboxTimeout)
	m.fillDefaults(life)
	createReq, diags := m.createRequest(ctx, r.Data, life)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	createReq.Metadata[ephemeralSandboxLabel] = "true"

	createCtx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	created, lost := createSandbox(createCtx, client, createReq, lostSandboxCreate{timeout: openTimeout, timeoutAttr: "timeouts.open",
		fate: "It has been killed, since no state keeps track of it."}, &resp.Diagnostics)
	if lost {
		killEphemeral(ctx, client, created.SandboxID, &resp.Diagnostics)
	}
	if created == nil || lost {
		return
	}

	// Tracked from now on, so that a CLI that stops the provider during the uploads below does not
	// leave it behind.
	openEphemeralSandboxes.add(created.SandboxID, client)
	m.ID = types.StringValue(created.SandboxID)
	m.TemplateID = convert.OptionalString(created.TemplateID)
	resp.Diagnostics.Append(m.fill(client, created, r.Data.Domain)...)
	if !resp.Diagnostics.HasError() {
		// The files are in place before anything that uses the sandbox gets its ID.
		var diags diag.Diagnostics
		m.Uploads, diags = uploadAll(ctx, client, created.SandboxID, m.Uploads)
		resp.Diagnostics.Append(diags...)
	}
	private, _ := json.Marshal(openSandbox{ID: created.SandboxID, Timeout: createReq.Timeout}) // Cannot fail.
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateSandboxKey, private)...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
	}
	if resp.Diagnostics.HasError() {
		// Terraform does not close what failed to open.
		killEphemeral(ctx, client, created.SandboxID, &resp.Diagnostics)
		return
	}
	resp.RenewAt = renewAt(life)
	tflog.Info(ctx, "opened ephemeral sandbox", map[string]any{"sandbox_id": created.SandboxID, "renew_at": resp.RenewAt})
}

// fillDefaults sets the inputs left out of the configuration to their defaults.
func (m *sandboxEphemeralModel) fillDefaults(life time.Duration) {
	if m.Template.IsNull() {
		m.Template = types.StringValue(defaultTemplate)
	}
	if m.Timeout.IsNull() {
		m.Timeout = customtypes.DurationValue(life)
	}
	if m.Secure.IsNull() {
		m.Secure = types.BoolValue(true)
	}
	if m.AllowInternetAccess.IsNull() {
		m.AllowInternetAccess = types.BoolValue(true)
	}
}

// Renew sets the sandbox's end to its timeout from now, before the previous end arrives.
func (r *sandboxEphemeralResource) Renew(ctx context.Context, req ephemeral.RenewRequest, resp *ephemeral.RenewResponse) {
	sb, client := r.opened(ctx, req.Private, &resp.Diagnostics)
	if client == nil {
		return
	}
	if err := client.SetSandboxTimeout(ctx, sb.ID, sb.Timeout); err != nil {
		summary := "Could not keep ephemeral sandbox " + sb.ID + " alive"
		if e2b.IsNotFound(err) {
			summary = "Ephemeral sandbox " + sb.ID + " ended before the run did"
		}
		base.AddClientError(&resp.Diagnostics, summary, err)
		return
	}
	resp.RenewAt = renewAt(time.Duration(sb.Timeout) * time.Second)
	tflog.Debug(ctx, "renewed ephemeral sandbox", map[string]any{"sandbox_id": sb.ID, "renew_at": resp.RenewAt})
}

// Close kills the sandbox, also when the run failed or was interrupted.
func (r *sandboxEphemeralResource) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	if sb, client := r.opened(ctx, req.Private, &resp.Diagnostics); client != nil {
		killEphemeral(ctx, client, sb.ID, &resp.Diagnostics)
	}
}

// killEphemeral kills a sandbox of this resource with a fresh, bounded context (the run's own
// may be cancelled); a failure is a warning, since the sandbox still ends at its timeout.
func killEphemeral(ctx context.Context, client *e2b.Client, id string, diags *diag.Diagnostics) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	err := client.KillSandbox(ctx, id)
	if err == nil || e2b.IsNotFound(err) {
		openEphemeralSandboxes.remove(id)
		tflog.Info(ctx, "killed ephemeral sandbox", map[string]any{"sandbox_id": id})
		return
	}
	diags.AddWarning("Could not kill ephemeral sandbox "+id,
		fmt.Sprintf("%v\n\nThe sandbox ends by itself when its timeout runs out (at most the timeout after its last "+
			"renewal). Leftovers carry the metadata %s = \"true\"; find them with the e2b_sandboxes data source.", err, ephemeralSandboxLabel))
}

// renewAt is when a sandbox that lives life from now must be renewed.
func renewAt(life time.Duration) time.Time {
	return time.Now().Add(life - min(life/2, maxRenewLead))
}

// opened reads what Open kept in the private data and returns it with a client; the client is
// nil after an error.
func (r *sandboxEphemeralResource) opened(ctx context.Context, private interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}, diags *diag.Diagnostics) (openSandbox, *e2b.Client) {
	var sb openSandbox
	raw, d := private.GetKey(ctx, privateSandboxKey)
	diags.Append(d...)
	if diags.HasError() {
		return sb, nil
	}
	if err := json.Unmarshal(raw, &sb); err != nil || sb.ID == "" {
		diags.AddError("Ephemeral sandbox not found in private data",
			"The run's private data for this ephemeral sandbox is missing or damaged. This is a bug in the provider; please report it.")
		return sb, nil
	}
	client, d := r.Data.Client()
	diags.Append(d...)
	return sb, client
}
