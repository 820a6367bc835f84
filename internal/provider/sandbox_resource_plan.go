package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
)

// forkCopiedReplace plans a bool a fork copies (default def) whose change replaces the sandbox.
func forkCopiedReplace(def bool) []planmodifier.Bool {
	return []planmodifier.Bool{forkCopiedBool{forkCopiedDefault[bool]{def}}, boolplanmodifier.RequiresReplace()}
}

// forkCopy is what the plan holds for a setting a fork copies from its source (E2B's fork API
// takes none of them): def without fork_from; the value in state while fork_from stays the same;
// else unknown, read from E2B after the apply.
type forkCopy int

const (
	forkCopyDefault forkCopy = iota
	forkCopyState
	forkCopyUnknown
)

// forkCopyOf decides forkCopy for an attribute the configuration leaves out.
func forkCopyOf(ctx context.Context, config tfsdk.Config, state tfsdk.State, stateValue attr.Value) (forkCopy, diag.Diagnostics) {
	var planned, prior types.String
	diags := config.GetAttribute(ctx, path.Root("fork_from"), &planned)
	switch {
	case diags.HasError():
		return forkCopyDefault, diags
	case planned.IsNull():
		return forkCopyDefault, diags
	case planned.IsUnknown() || state.Raw.IsNull() || stateValue.IsNull() || stateValue.IsUnknown():
		return forkCopyUnknown, diags
	}
	diags.Append(state.GetAttribute(ctx, path.Root("fork_from"), &prior)...)
	if prior.Equal(planned) {
		return forkCopyState, diags
	}
	return forkCopyUnknown, diags
}

// forkCopied plans an attribute a fork copies that the configuration leaves out, as forkCopyOf
// decides: def() (called only then), stateValue, or unknown.
func forkCopied[T attr.Value](ctx context.Context, config tfsdk.Config, state tfsdk.State, stateValue T,
	def func() T, unknown T, diags *diag.Diagnostics) T {
	how, d := forkCopyOf(ctx, config, state, stateValue)
	diags.Append(d...)
	switch how {
	case forkCopyDefault:
		return def()
	case forkCopyState:
		return stateValue
	}
	return unknown
}

// forkCopiedDefault is the default of an attribute a fork copies (see forkCopy): the plan
// modifiers below replace the attribute's Default with it.
type forkCopiedDefault[T string | bool] struct{ def T }

func (m forkCopiedDefault[T]) Description(context.Context) string {
	return fmt.Sprintf("Default %#v; a fork's is its source's.", m.def)
}
func (m forkCopiedDefault[T]) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

// forkCopiedString plans a string a fork copies.
type forkCopiedString struct{ forkCopiedDefault[string] }

func (m forkCopiedString) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	def := func() types.String {
		var mcp customtypes.SensitiveJSON
		if req.Path.Equal(path.Root("template")) {
			resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("mcp"), &mcp)...)
		}
		if !mcp.IsNull() { // as E2B's SDK: a sandbox with mcp starts from the gateway's template
			return types.StringValue(e2b.MCPTemplate)
		}
		return types.StringValue(m.def)
	}
	resp.PlanValue = forkCopied(ctx, req.Config, req.State, req.StateValue, def, types.StringUnknown(), &resp.Diagnostics)
}

// forkCopiedBool plans a bool a fork copies.
type forkCopiedBool struct{ forkCopiedDefault[bool] }

func (m forkCopiedBool) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	def := func() types.Bool { return types.BoolValue(m.def) }
	resp.PlanValue = forkCopied(ctx, req.Config, req.State, req.StateValue, def, types.BoolUnknown(), &resp.Diagnostics)
}

// ValidateConfig rejects combinations E2B would refuse, before any call is made.
func (r *sandboxResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg sandboxResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.validateCreateOptions(ctx, &resp.Diagnostics)
	tokens, known := cfg.iamTokenNames()
	cfg.validate(ctx, tokens, known, &resp.Diagnostics)
}

// ModifyPlan computes metadata_all and the values that follow from paused, and stops plans
// E2B cannot carry out.
func (r *sandboxResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	defer r.checkReferencesAtPlan(ctx, req, resp) // last: only a plan without other errors reads
	switch {
	case req.Plan.Raw.IsNull():
		return // Destroy.
	case req.State.Raw.IsNull():
		r.modifyCreatePlan(ctx, req, resp)
		return
	case req.Plan.Raw.Equal(req.State.Raw) && r.sameMetadataAll(ctx, req, resp):
		return // Nothing changes, not even what default_metadata adds.
	}
	var plan sandboxResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if !plan.Paused.IsUnknown() {
		plan.State = types.StringValue(e2b.SandboxStateRunning)
		if plan.Paused.ValueBool() {
			plan.State = types.StringValue(e2b.SandboxStatePaused)
		}
	}
	plan.MetadataAll = r.plannedMetadataAll(ctx, plan.Metadata)
	if !plan.ForkFrom.IsNull() { // A fork carries its source's metadata.
		plan.MetadataAll = types.MapUnknown(types.StringType)
	}
	if plan.StoreAccessTokens.Equal(types.BoolValue(false)) {
		plan.EnvdAccessToken = types.StringNull()
		plan.TrafficAccessToken = types.StringNull()
	}

	if !req.State.Raw.IsNull() {
		var state sandboxResourceModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !plan.ForkFrom.IsNull() && plan.ForkFrom.Equal(state.ForkFrom) {
			plan.MetadataAll = state.MetadataAll // a fork keeps its source's metadata
		}
		// E2B cannot update metadata: what it stores changing replaces the sandbox. A change of
		// metadata that leaves metadata_all as it is (after an import, or a key moved to
		// default_metadata) is recorded without a call.
		switch {
		case plan.MetadataAll.IsUnknown():
			if !plan.Metadata.Equal(state.Metadata) {
				resp.RequiresReplace = append(resp.RequiresReplace, path.Root("metadata"))
			}
		case !plan.MetadataAll.Equal(state.MetadataAll):
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("metadata_all"))
		}
		if state.StoreAccessTokens.Equal(types.BoolValue(false)) && !plan.StoreAccessTokens.Equal(types.BoolValue(false)) {
			// Stored again from this apply on.
			plan.EnvdAccessToken = types.StringUnknown()
			plan.TrafficAccessToken = types.StringUnknown()
		}
		if !plan.MCP.Equal(state.MCP) { // mcp recorded after an import: its URL follows
			plan.MCPURL = types.StringUnknown()
		}
		pausedSame := plan.Paused.Equal(state.Paused)
		if pausedSame {
			plan.StartedAt = state.StartedAt
			if customtypes.SameDuration(ctx, plan.Timeout, state.Timeout) {
				plan.EndAt = state.EndAt
			}
		}
		if pausedSame && state.Paused.ValueBool() &&
			(!plan.AllowInternetAccess.Equal(state.AllowInternetAccess) || networkEgressChanged(ctx, state.Network, plan.Network)) {
			resp.Diagnostics.AddAttributeError(path.Root("network"), "Cannot change the network of a paused sandbox",
				"E2B changes egress rules only on running sandboxes. Set paused = false in the same change "+
					"(the rules are applied after the resume), or apply the network change while it runs.")
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// modifyCreatePlan is ModifyPlan for a new sandbox: it sets state and metadata_all, reading and
// writing only those attributes rather than the whole model.
func (r *sandboxResource) modifyCreatePlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var paused types.Bool
	var metadata types.Map
	var forkFrom types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("paused"), &paused)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("metadata"), &metadata)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("fork_from"), &forkFrom)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !paused.IsUnknown() {
		state := e2b.SandboxStateRunning
		if paused.ValueBool() {
			state = e2b.SandboxStatePaused
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("state"), state)...)
	}
	metadataAll := r.plannedMetadataAll(ctx, metadata)
	if !forkFrom.IsNull() { // A fork carries its source's metadata.
		metadataAll = types.MapUnknown(types.StringType)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("metadata_all"), metadataAll)...)
}

// sameMetadataAll tells whether the planned metadata, merged with default_metadata, still gives
// the metadata_all in state.
func (r *sandboxResource) sameMetadataAll(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	var metadata, metadataAll types.Map
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("metadata"), &metadata)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("metadata_all"), &metadataAll)...)
	return !resp.Diagnostics.HasError() && r.plannedMetadataAll(ctx, metadata).Equal(metadataAll)
}

// plannedMetadataAll merges default_metadata with the planned metadata; unknown when either is.
func (r *sandboxResource) plannedMetadataAll(ctx context.Context, own types.Map) types.Map {
	if !convert.FullyKnown(ctx, own) || (r.Data != nil && r.Data.DefaultMetadataUnknown) {
		return types.MapUnknown(types.StringType)
	}
	m, diags := convert.StringMapFrom(ctx, own)
	if diags.HasError() {
		return types.MapUnknown(types.StringType)
	}
	return convert.StringMapValue(r.Data.MergedMetadata(m))
}

// networkIngressChanged asks for replacement when allow_public_traffic, mask_request_host or
// https_ports change (null counts as E2B's defaults: public, no mask, no HTTPS ports).
func networkIngressChanged(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.StateValue.IsNull() && req.PlanValue.IsNull() {
		return
	}
	state, _ := ingressOf(ctx, req.StateValue)
	plan, known := ingressOf(ctx, req.PlanValue)
	resp.RequiresReplace = !known || !state.equal(plan)
}

// networkEgressChanged reports whether allow_out or deny_out differ (null equals empty).
func networkEgressChanged(ctx context.Context, state, plan types.Object) bool {
	type egress struct {
		allow, deny  []string
		rules, proxy attr.Value
	}
	read := func(o types.Object) egress {
		e := egress{rules: types.MapNull(types.ObjectType{AttrTypes: ruleAttrTypes}), proxy: types.ObjectNull(egressProxyResourceAttrTypes)}
		if o.IsNull() || o.IsUnknown() {
			return e
		}
		var n sandboxNetworkModel
		if d := o.As(ctx, &n, basetypes.ObjectAsOptions{}); d.HasError() {
			return e
		}
		e.allow, _ = convert.StringSetFrom(ctx, n.AllowOut)
		e.deny, _ = convert.StringSetFrom(ctx, n.DenyOut)
		if !n.Rules.IsNull() {
			e.rules = n.Rules
		}
		if !n.EgressProxy.IsNull() {
			e.proxy = n.EgressProxy // its write-only password is null on both sides; its version counts
		}
		return e
	}
	if plan.IsUnknown() {
		return true
	}
	s, p := read(state), read(plan)
	return !slices.Equal(s.allow, p.allow) || !slices.Equal(s.deny, p.deny) || !s.rules.Equal(p.rules) || !s.proxy.Equal(p.proxy)
}
