package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ resource.ResourceWithConfigure      = &sandboxResource{}
	_ resource.ResourceWithImportState    = &sandboxResource{}
	_ resource.ResourceWithIdentity       = &sandboxResource{}
	_ resource.ResourceWithModifyPlan     = &sandboxResource{}
	_ resource.ResourceWithValidateConfig = &sandboxResource{}
)

// Default durations of the timeouts block.
const (
	defaultSandboxCreateTimeout = 5 * time.Minute
	defaultSandboxUpdateTimeout = 5 * time.Minute
	defaultSandboxDeleteTimeout = 5 * time.Minute
)

// envVarsUnreadKey marks a sandbox imported with inputs that E2B never returns (env_vars, iam,
// mcp, auto_pause_memory): while it is set, a configured value of them is recorded in place
// instead of replacing the sandbox. The import sets it, the first refresh after the import keeps
// it for the plan it serves, and the next refresh (or an apply that records them) removes it, so
// it never outlives the first apply. (The key keeps its first name: states hold it.)
const envVarsUnreadKey = "env_vars_unread"

// Values of envVarsUnreadKey (private state holds JSON).
var (
	envVarsImported  = []byte(`"imported"`)
	envVarsRefreshed = []byte(`"refreshed"`)
)

// NewSandboxResource returns the e2b_sandbox resource.
func NewSandboxResource() resource.Resource {
	return &sandboxResource{base.ResourceConfig{TypeName: "_sandbox"}}
}

// sandboxResource implements e2b_sandbox.
type sandboxResource struct {
	base.ResourceConfig
}

// sandboxIdentityModel is the resource identity.
type sandboxIdentityModel struct {
	SandboxID types.String `tfsdk:"sandbox_id"`
}

func (r *sandboxResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan sandboxResourceModel
	client, ok := base.ModelAndClient(ctx, req.Plan.Get, &plan, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, timeout := base.WithTimeout(ctx, plan.Timeouts.Create, defaultSandboxCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	createReq, diags := plan.createRequest(ctx, r.Data)
	resp.Diagnostics.Append(diags...)
	if createReq.Network != nil && createReq.Network.EgressProxy != nil {
		createReq.Network.EgressProxy.Password = proxyPasswordFrom(ctx, req.Config, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	// A create or fork that timed out but made the sandbox is kept in state (tainted) rather than
	// leaving a billed sandbox behind.
	var created *e2b.Sandbox
	lc := lostSandboxCreate{timeout: timeout, timeoutAttr: "timeouts.create",
		fate: "It is kept in state and marked tainted, so the next apply replaces it and destroy removes it."}
	if forkFrom := plan.ForkFrom.ValueString(); forkFrom != "" {
		created = forkSandbox(ctx, client, forkFrom, e2b.ForkOptions{Timeout: createReq.Timeout,
			FilesystemOnly: plan.ForkMemory.Equal(types.BoolValue(false))}, lc, &resp.Diagnostics)
	} else {
		created, _ = createSandbox(ctx, client, createReq, lc, &resp.Diagnostics)
	}
	if created == nil {
		return
	}
	wantPaused := plan.Paused.ValueBool()

	// From here on, any failure keeps the sandbox in state (tainted) with what is known, instead
	// of orphaning a billed sandbox.
	plan.applyCreated(created, r.Data.Domain)
	if plan.ForkFrom.IsNull() { // a fork carries its source's metadata, read back below
		plan.MetadataAll = convert.StringMapValue(createReq.Metadata)
	}
	plan.Paused = types.BoolValue(false)
	plan.State = types.StringValue(e2b.SandboxStateRunning)
	saved := plan
	saved.nullUnknownComputed()
	resp.Diagnostics.Append(resp.Identity.Set(ctx, sandboxIdentityModel{SandboxID: plan.ID})...)
	if !resp.Diagnostics.HasError() && !plan.MCP.IsNull() { // E2B's SDK starts the gateway; so does the provider
		envd := client.Envd(e2b.EnvdTarget{SandboxID: created.SandboxID, AccessToken: created.EnvdAccessToken, Domain: created.Domain})
		if err := envd.StartMCPGateway(ctx, json.RawMessage(plan.MCP.ValueString())); err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("mcp"), "Sandbox created but its MCP gateway did not start", err)
		}
	}
	if !resp.Diagnostics.HasError() && wantPaused {
		if err := pauseSandbox(ctx, client, created.SandboxID, plan.PauseMemory); err != nil {
			base.AddClientError(&resp.Diagnostics, "Sandbox created but could not be paused", err)
		}
	}
	// E2B's create answer has no startedAt, endAt, cpuCount, memoryMB or diskSizeMB: only a read
	// tells them (and, after a pause, the paused state).
	if !resp.Diagnostics.HasError() && r.readBack(ctx, client, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &saved)...) // A timed-out create is saved for the next apply to replace.
}

// pauseSandbox pauses with or without memory, as pause_memory says (null: with).
func pauseSandbox(ctx context.Context, client *e2b.Client, id string, memory types.Bool) error {
	if memory.Equal(types.BoolValue(false)) {
		return client.PauseSandboxFilesystem(ctx, id)
	}
	return client.PauseSandbox(ctx, id)
}

// refreshAfterWrite reads the sandbox back and saves it; on failure the last saved state stays.
func (r *sandboxResource) refreshAfterWrite(ctx context.Context, client *e2b.Client, m *sandboxResourceModel,
	set func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) {
	if r.readBack(ctx, client, m, diags) {
		diags.Append(set(ctx, m)...)
	}
}

// readBack fills m from a read of the sandbox and reports whether that worked.
func (r *sandboxResource) readBack(ctx context.Context, client *e2b.Client, m *sandboxResourceModel, diags *diag.Diagnostics) bool {
	detail, err := client.GetSandbox(ctx, m.ID.ValueString())
	if err != nil {
		base.AddClientError(diags, "Could not read sandbox "+m.ID.ValueString()+" after the change", err)
		return false
	}
	m.applyDetail(detail, r.Data.Domain)
	m.applyForkCopies(detail)
	m.nullUnknownComputed()
	return true
}

// applyForkCopies fills what a fork copied from its source and only a read tells (applyDetail
// reads the lifecycle, internet access and metadata).
func (m *sandboxResourceModel) applyForkCopies(d *e2b.SandboxDetail) {
	if m.ForkFrom.IsNull() {
		return
	}
	m.Template = types.StringValue(d.TemplateID)
	if d.Alias != "" {
		m.Template = types.StringValue(d.Alias)
	}
	m.Secure = types.BoolValue(d.EnvdAccessToken != "")
}

func (r *sandboxResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state sandboxResourceModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	id := state.ID.ValueString()
	detail, err := client.GetSandbox(ctx, id)
	if err != nil {
		if e2b.IsNotFound(err) {
			base.RemoveGone(ctx, resp, "Sandbox no longer exists",
				fmt.Sprintf("Sandbox %s was not found: it expired (its timeout ran out without auto_pause) or was killed. "+
					"It has been removed from state; the next apply creates a new sandbox.%s", id, goneWorkNote(state)),
				sandboxIdentityModel{SandboxID: state.ID})
			return
		}
		// Transient or unknown errors never drop the sandbox from state.
		base.AddClientError(&resp.Diagnostics, "Could not read sandbox "+id, err)
		return
	}
	importing := state.Template.IsNull() && state.ForkFrom.IsNull() // An import sets only the ID.
	state.applyDetail(detail, r.Data.Domain)
	state.applyForkCopies(detail)
	state.applyReportedInputs(ctx, detail)
	if importing {
		state.applyImported(detail, r.Data.DefaultMetadata)
	}
	resp.Diagnostics.Append(ageEnvVarsMark(ctx, req.Private, resp.Private, importing)...)
	state.nullUnknownComputed()
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, sandboxIdentityModel{SandboxID: state.ID})...)
}

func (r *sandboxResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state sandboxResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, _ := base.WithTimeout(ctx, plan.Timeouts.Update, defaultSandboxUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	// resp.State starts as the prior state and is only replaced after every call succeeded, so a
	// failed call leaves the change planned again instead of recorded as done.
	id := state.ID.ValueString()
	plan.ID = state.ID
	wasPaused, wantPaused := state.Paused.ValueBool(), plan.Paused.ValueBool()
	egressChanged := !plan.AllowInternetAccess.Equal(state.AllowInternetAccess) || networkEgressChanged(ctx, state.Network, plan.Network)

	if wasPaused && !wantPaused {
		resumed, _, err := client.ConnectSandboxWith(ctx, id, e2b.ConnectOptions{
			Timeout: plan.timeoutSeconds(), FromDisk: fromDisk(plan.ResumeMemory)})
		if err != nil {
			summary := "Could not resume sandbox " + id
			addResumeError(&resp.Diagnostics, path.Root("resume_memory"), summary, err, base.ClientErrorDiagnostic(summary, err))
			return
		}
		plan.applyCreated(resumed, r.Data.Domain)
	} else if !wantPaused && !customtypes.SameDuration(ctx, plan.Timeout, state.Timeout) {
		if err := client.SetSandboxTimeout(ctx, id, plan.timeoutSeconds()); err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("timeout"), "Could not change the timeout of sandbox "+id, err)
			return
		}
	}
	if !wasPaused && !wantPaused && plan.StoreAccessTokens.ValueBool() && !state.StoreAccessTokens.ValueBool() {
		// Only create and connect answers carry the traffic token. A connect with timeout 0 never
		// shortens a running sandbox's life nor extends it.
		sb, _, err := client.ConnectSandbox(ctx, id, 0)
		if err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("store_access_tokens"), "Could not read the access tokens of sandbox "+id, err)
			return
		}
		plan.applyCreated(sb, r.Data.Domain)
	}
	if egressChanged {
		u, diags := plan.networkUpdate(ctx, proxyPasswordFrom(ctx, req.Config, &resp.Diagnostics))
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if err := client.UpdateSandboxNetwork(ctx, id, u); err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("network"), "Could not change the network rules of sandbox "+id, err)
			return
		}
	}
	if !wasPaused && wantPaused {
		if err := pauseSandbox(ctx, client, id, plan.PauseMemory); err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("paused"), "Could not pause sandbox "+id, err)
			return
		}
	}
	// Set explicitly: a state written before identity existed carries none to pre-populate.
	resp.Diagnostics.Append(resp.Identity.Set(ctx, sandboxIdentityModel{SandboxID: state.ID})...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, envVarsUnreadKey, nil)...) // env_vars now follow the plan.
	r.refreshAfterWrite(ctx, client, &plan, resp.State.Set, &resp.Diagnostics)
}

func (r *sandboxResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state sandboxResourceModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, _ := base.WithTimeout(ctx, state.Timeouts.Delete, defaultSandboxDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	if !snapshotBeforeKill(ctx, client, state, &resp.Diagnostics) {
		return
	}
	id := state.ID.ValueString()
	if err := client.KillSandbox(ctx, id); err != nil && !e2b.IsNotFound(err) {
		base.AddClientError(&resp.Diagnostics, "Could not kill sandbox "+id, err)
	}
}

func (r *sandboxResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := base.ImportedID(ctx, req, "sandbox_id", &resp.Diagnostics)
	if msg := validators.CheckSandboxID(id); msg != "" && !resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Invalid import ID", msg)
	}
	if resp.Diagnostics.HasError() {
		return // Nothing was asked of E2B.
	}
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("sandbox_id"), req, resp)
}

// ageEnvVarsMark moves the env_vars mark of an import on by one refresh (see envVarsUnreadKey).
func ageEnvVarsMark(ctx context.Context, prior, next base.PrivateState, importing bool) diag.Diagnostics {
	if importing {
		return next.SetKey(ctx, envVarsUnreadKey, envVarsImported)
	}
	mark, diags := prior.GetKey(ctx, envVarsUnreadKey)
	switch {
	case bytes.Equal(mark, envVarsImported):
		diags.Append(next.SetKey(ctx, envVarsUnreadKey, envVarsRefreshed)...)
	case len(mark) > 0:
		diags.Append(next.SetKey(ctx, envVarsUnreadKey, nil)...)
	}
	return diags
}

// unreadChanged replaces the sandbox when an input E2B never returns changes, except right
// after an import, where the state has none of them (see envVarsUnreadKey).
func unreadChanged(ctx context.Context, private base.PrivateState) (replace bool, diags diag.Diagnostics) {
	unread, diags := private.GetKey(ctx, envVarsUnreadKey)
	return len(unread) == 0, diags
}

func envVarsChanged(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	var diags diag.Diagnostics
	resp.RequiresReplace, diags = unreadChanged(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
}

func unreadStringChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	var diags diag.Diagnostics
	resp.RequiresReplace, diags = unreadChanged(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
}

// templateChanged replaces the sandbox for a new template, except right after an import when
// the configuration only adds the tag the import could not read (E2B reports the template's
// name without it): the sandbox is the one the configuration describes.
func templateChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = true
	if req.StateValue.IsNull() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	replace, diags := unreadChanged(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if !replace && e2b.TagOnlyAdded(req.StateValue.ValueString(), req.ConfigValue.ValueString()) {
		resp.RequiresReplace = false
	}
}

func unreadBoolChanged(ctx context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	var diags diag.Diagnostics
	resp.RequiresReplace, diags = unreadChanged(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms.
	return hex.EncodeToString(b)
}
