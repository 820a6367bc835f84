package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/boolvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxCreateOptionAttributes are the create-only inputs of e2b_sandbox
// beyond template, lifecycle and network: each replaces the sandbox.
func sandboxCreateOptionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"volume_mounts": schema.MapAttribute{
			MarkdownDescription: descVolumeMounts + " Changing it replaces the sandbox.",
			Optional:            true,
			ElementType:         types.StringType,
			PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators:          validators.VolumeMounts(),
		},
		"auto_pause_memory": schema.BoolAttribute{
			MarkdownDescription: "With `auto_pause = true`: whether the auto-pause keeps memory and processes (`true`, " +
				"E2B's default) or only the filesystem (`false`: resuming reboots the sandbox, files stay, processes do " +
				"not). `false` cannot be combined with `auto_resume = true`. Changing it replaces the sandbox; " +
				importUnreadNote,
			Optional: true,
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(unreadBoolChanged,
				"Changing auto_pause_memory replaces the sandbox, except right after an import.",
				"Changing `auto_pause_memory` replaces the sandbox, except right after an import.")},
		},
		"mcp": schema.StringAttribute{
			MarkdownDescription: "MCP configuration of the sandbox as a JSON object (use `jsonencode`). E2B stores it; as " +
				"E2B's SDK does, the provider then starts the MCP gateway in the new sandbox with it (`mcp-gateway --config`, " +
				"as root, with an access token of its own), so the template must have the gateway (`mcp-gateway`, the " +
				"default `template` with `mcp`, or one built from it). The gateway listens at `mcp_url`; " +
				"`ephemeral \"e2b_sandbox_access\"` reads its token. A gateway that does not start fails the create and " +
				"leaves the sandbox tainted. Sensitive: it usually carries the MCP servers' tokens. Changing it replaces the sandbox; " +
				importUnreadNote + " The provider then starts no gateway: the one the sandbox runs stays.",
			Optional:   true,
			Sensitive:  true,
			CustomType: customtypes.SensitiveJSONType{},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(unreadStringChanged,
				"Changing mcp replaces the sandbox, except right after an import.",
				"Changing `mcp` replaces the sandbox, except right after an import.")},
		},
		"iam": schema.MapNestedAttribute{
			MarkdownDescription: "Workload-identity tokens for the sandbox, by token name (not empty, without `{`, `}` or " +
				"control characters). Changing them replaces the sandbox; " + importUnreadNote,
			Optional: true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(envVarsChanged,
				"Changing iam replaces the sandbox, except right after an import.",
				"Changing `iam` replaces the sandbox, except right after an import.")},
			Validators: []validator.Map{mapvalidator.KeysAre(validators.StringRule{Desc: "must be a usable token name",
				Summary: "Invalid iam token name", Check: validators.FromError(e2b.ValidateIAMTokenName)})},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"audience": schema.StringAttribute{
					MarkdownDescription: "Audience of the token, stored exactly as given.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"token_type": schema.StringAttribute{
					MarkdownDescription: "Type of the workload token.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
			}},
		},
		"fork_from": schema.StringAttribute{
			MarkdownDescription: "ID of a running sandbox to fork: the new sandbox starts as a copy of it (files, and " +
				"its template, metadata, environment, lifecycle and network settings) through E2B's fork API, instead of from " +
				"`template`. The source keeps running. Settings that a fork copies cannot be set here: `template`, `secure`, " +
				"`auto_pause`, `auto_resume`, `allow_internet_access` and `metadata_all` read the source's after the apply; " +
				"`network`, `volume_mounts` and `env_vars` stay null although the fork has its source's (E2B does not return " +
				"env_vars; see the source for the rest). A fork carries nothing of its own (E2B's fork API takes no metadata), " +
				"so a fork whose answer is lost is found as the one sandbox new since the fork with its source's template " +
				"and exact metadata; the provider forks one sandbox at a time for this, and reports the candidates when " +
				"another client forked the same source at the same moment. Changing it replaces the sandbox.",
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    validators.SandboxID(), // and conflicts with what a fork cannot set: withForkConflicts
		},
		"fork_memory": schema.BoolAttribute{
			MarkdownDescription: "With `fork_from`: `false` forks the source's filesystem only (E2B's fork v2 with " +
				"`memory = false`): the fork cold-boots with the source's files and none of its running processes, memory " +
				"or open connections, and the snapshot E2B takes of the source is smaller and quicker. Unset or `true` is " +
				"E2B's default, a fork with the source's memory. `false` needs fork v2 (`POST /v2/sandboxes/{id}/fork`): " +
				"an E2B without it, or one where this capability is off, refuses the fork (nothing is forked; it is never " +
				"made with memory instead). Changing it replaces the sandbox.",
			Optional:      true,
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			Validators:    []validator.Bool{boolvalidator.AlsoRequires(path.MatchRoot("fork_from"))},
		},
	}
}

// forkTakes are the inputs a fork accepts beside fork_from: how long it lives and what becomes of
// it. A fork is its source's copy, so every other input of the schema conflicts with fork_from
// (withForkConflicts): an input added to e2b_sandbox is refused with a fork until it is named here.
var forkTakes = map[string]bool{
	"fork_from": true, "fork_memory": true, "timeout": true, "paused": true, "pause_memory": true,
	"resume_memory": true, "store_access_tokens": true, "snapshot_on_destroy": true,
}

// withForkConflicts makes fork_from conflict with every configurable attribute of attrs that
// forkTakes does not name, in name order.
func withForkConflicts(attrs map[string]schema.Attribute) {
	var conflicts []string
	for name, a := range attrs {
		if (a.IsOptional() || a.IsRequired()) && !forkTakes[name] {
			conflicts = append(conflicts, name)
		}
	}
	sort.Strings(conflicts)
	exprs := make([]path.Expression, 0, len(conflicts))
	for _, name := range conflicts {
		exprs = append(exprs, path.MatchRoot(name))
	}
	fork := attrs["fork_from"].(schema.StringAttribute)
	fork.Validators = append(slices.Clone(fork.Validators), stringvalidator.ConflictsWith(exprs...))
	attrs["fork_from"] = fork
}

// importUnreadNote says how an input E2B never returns behaves after an import.
const importUnreadNote = "E2B never returns this input, so an import leaves it null and the first apply after the import " +
	"records the configured value without a replacement (the provider cannot tell what the sandbox has; it " +
	"trusts the configuration)."

// iamTokenNames are the names iam declares; known is false while the map is unknown.
func (m *sandboxResourceModel) iamTokenNames() (names []string, known bool) {
	if m.IAM.IsUnknown() {
		return nil, false
	}
	for name := range m.IAM.Elements() {
		names = append(names, name)
	}
	return names, true
}

// iamTokenModel maps one entry of iam.
type iamTokenModel struct {
	Audience  types.String `tfsdk:"audience"`
	TokenType types.String `tfsdk:"token_type"`
}

// addCreateOptions copies the create options into req.
func (m *sandboxResourceModel) addCreateOptions(ctx context.Context, req *e2b.CreateSandboxRequest) diag.Diagnostics {
	var diags diag.Diagnostics
	req.AutoPauseMemory = convert.BoolPtr(m.AutoPauseMemory)
	if !m.MCP.IsNull() && !m.MCP.IsUnknown() {
		req.MCP = json.RawMessage(m.MCP.ValueString())
	}
	if !m.IAM.IsNull() && !m.IAM.IsUnknown() {
		var tokens map[string]iamTokenModel
		diags.Append(m.IAM.ElementsAs(ctx, &tokens, false)...)
		req.IAMTokens = map[string]e2b.IAMToken{}
		for name, t := range tokens {
			req.IAMTokens[name] = e2b.IAMToken{Audience: t.Audience.ValueString(), TokenType: t.TokenType.ValueString()}
		}
	}
	return diags
}

// validateCreateOptions applies E2B's create rules to a configuration whose
// values are known.
func (m *sandboxResourceModel) validateCreateOptions(ctx context.Context, diags *diag.Diagnostics) {
	if m.AutoPause.IsUnknown() || m.AutoResume.IsUnknown() || m.AutoPauseMemory.IsUnknown() || m.MCP.IsUnknown() {
		return // Checked again once known.
	}
	var req e2b.CreateSandboxRequest
	diags.Append(m.addCreateOptions(ctx, &req)...)
	req.AutoPause, req.AutoResume = convert.BoolPtr(m.AutoPause), convert.BoolPtr(m.AutoResume)
	if err := e2b.ValidateMCP(req.MCP); err != nil {
		diags.AddAttributeError(path.Root("mcp"), "Invalid mcp", err.Error()+".")
		return
	}
	req.IAMTokens = nil // checked by the schema
	if err := req.Validate(); err != nil {
		diags.AddAttributeError(path.Root("auto_pause_memory"), "Invalid auto_pause_memory", err.Error()+".")
	}
	if m.PauseMemory.Equal(types.BoolValue(false)) && m.AutoResume.Equal(types.BoolValue(true)) {
		diags.AddAttributeError(path.Root("pause_memory"), "pause_memory = false cannot be combined with auto_resume",
			"E2B's auto-resume refuses a sandbox paused without its memory: it must be resumed explicitly "+
				"(paused = false). Remove auto_resume = true or pause_memory = false.")
	}
}

// applyCreateOptionsDetail fills the inputs an import can learn from E2B.
func (m *sandboxResourceModel) applyCreateOptionsDetail(d *e2b.SandboxDetail) {
	if len(d.VolumeMounts) == 0 {
		m.VolumeMounts = types.MapNull(types.StringType)
		return
	}
	mounts := make(map[string]string, len(d.VolumeMounts))
	for _, v := range d.VolumeMounts {
		mounts[v.Name] = v.Path
	}
	m.VolumeMounts = convert.StringMapValue(mounts)
}

// forkSandbox makes the sandbox as one fork of a running one. The client settles a lost answer
// (e2b.Client.ForkOne); a fork found after the create timeout ran out or the run was interrupted
// comes back with an error diagnostic, and the caller keeps it in state (tainted).
func forkSandbox(ctx context.Context, client *e2b.Client, sourceID string, opts e2b.ForkOptions, lc lostSandboxCreate, diags *diag.Diagnostics) *e2b.Sandbox {
	sb, err := client.ForkOneWith(ctx, sourceID, opts)
	var interrupted *e2b.CreateInterruptedError
	var unsettled *e2b.ForkUnsettledError
	switch {
	case sb != nil && errors.As(err, &interrupted):
		diags.AddAttributeError(path.Root("fork_from"), "Sandbox fork timed out", fmt.Sprintf(
			"The fork did not answer within the create timeout (%s) or the run was interrupted, but E2B made sandbox %s. %s "+
				"Raise %s if forks are slow. Cause: %v", lc.timeout, sb.SandboxID, lc.fate, lc.timeoutAttr, interrupted.Err))
	case errors.As(err, &unsettled) && len(unsettled.Candidates) > 0:
		diags.AddAttributeError(path.Root("fork_from"), "Sandbox fork may have been made", fmt.Sprintf(
			"%v.\n\nE2B's answer was lost, and a fork carries nothing of its own to tell it apart. Import the one this "+
				"configuration should manage (terraform import <address> <id>) and kill the others, or kill them all and apply again.", err))
	case err != nil:
		base.AddClientAttributeError(diags, path.Root("fork_from"), "Could not fork sandbox "+sourceID, err)
	}
	return sb
}
