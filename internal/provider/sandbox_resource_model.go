package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
)

// sandboxResourceModel maps the e2b_sandbox resource.
type sandboxResourceModel struct {
	sandboxCreateOptions
	sandboxReported

	Timeout           customtypes.GoDuration `tfsdk:"timeout"`
	Paused            types.Bool             `tfsdk:"paused"`
	PauseMemory       types.Bool             `tfsdk:"pause_memory"`
	ResumeMemory      types.Bool             `tfsdk:"resume_memory"`
	AutoPause         types.Bool             `tfsdk:"auto_pause"`
	AutoResume        types.Bool             `tfsdk:"auto_resume"`
	StoreAccessTokens types.Bool             `tfsdk:"store_access_tokens"`
	Timeouts          timeouts.Value         `tfsdk:"timeouts"`

	// Create options of the resource alone (sandbox_resource_create_options.go).
	AutoPauseMemory types.Bool                `tfsdk:"auto_pause_memory"`
	MCP             customtypes.SensitiveJSON `tfsdk:"mcp"`
	IAM             types.Map                 `tfsdk:"iam"`
	ForkFrom        types.String              `tfsdk:"fork_from"`
	ForkMemory      types.Bool                `tfsdk:"fork_memory"`
	// Destroy-time option (sandbox_resource_snapshot_on_destroy.go).
	SnapshotOnDestroy types.Object `tfsdk:"snapshot_on_destroy"`

	EnvdAccessToken    types.String `tfsdk:"envd_access_token"`
	TrafficAccessToken types.String `tfsdk:"traffic_access_token"`
	Domain             types.String `tfsdk:"domain"`
	MCPURL             types.String `tfsdk:"mcp_url"`
	MetadataAll        types.Map    `tfsdk:"metadata_all"`
}

var sandboxNetworkAttrTypes = map[string]attr.Type{
	"allow_out":            types.SetType{ElemType: types.StringType},
	"deny_out":             types.SetType{ElemType: types.StringType},
	"allow_public_traffic": types.BoolType,
	"mask_request_host":    types.StringType,
	"rules":                types.MapType{ElemType: types.ObjectType{AttrTypes: ruleAttrTypes}},
	"egress_proxy":         types.ObjectType{AttrTypes: egressProxyResourceAttrTypes},
	"https_ports":          types.SetType{ElemType: types.Int64Type},
}

// createRequest builds the API request from a planned model.
func (m *sandboxResourceModel) createRequest(ctx context.Context, data *base.ProviderData) (e2b.CreateSandboxRequest, diag.Diagnostics) {
	req, diags := m.sandboxCreateOptions.createRequest(ctx, data, customtypes.DurationOr(m.Timeout, defaultSandboxTimeout))
	req.AutoPause = convert.BoolPtr(m.AutoPause)
	req.AutoResume = convert.BoolPtr(m.AutoResume)
	diags.Append(m.addCreateOptions(ctx, &req)...)
	return req, diags
}

// networkUpdate builds the PUT network body from a planned model and the configured proxy
// password: E2B replaces the whole egress configuration, so it carries all of it.
func (m *sandboxResourceModel) networkUpdate(ctx context.Context, proxyPassword string) (e2b.NetworkUpdate, diag.Diagnostics) {
	var diags diag.Diagnostics
	u := e2b.NetworkUpdate{AllowInternetAccess: convert.BoolPtr(m.AllowInternetAccess), AllowOut: []string{}, DenyOut: []string{}}
	n, d := m.network(ctx)
	diags.Append(d...)
	if n != nil {
		u.Rules, d = networkRulesFrom(ctx, n.Rules)
		diags.Append(d...)
		if u.EgressProxy = egressProxyFrom(n.EgressProxy); u.EgressProxy != nil {
			u.EgressProxy.Password = proxyPassword
		}
		if v, d := convert.StringSetFrom(ctx, n.AllowOut); v != nil {
			diags.Append(d...)
			u.AllowOut = v
		}
		if v, d := convert.StringSetFrom(ctx, n.DenyOut); v != nil {
			diags.Append(d...)
			u.DenyOut = v
		}
	}
	return u, diags
}

// applyCreated copies what a create, connect or resume response tells.
func (m *sandboxResourceModel) applyCreated(s *e2b.Sandbox, providerDomain string) {
	m.ID = types.StringValue(s.SandboxID)
	if s.TemplateID != "" {
		m.TemplateID = types.StringValue(s.TemplateID)
	}
	if s.Alias != "" || m.Alias.IsUnknown() {
		m.Alias = convert.OptionalString(s.Alias)
	}
	if s.EnvdVersion != "" {
		m.EnvdVersion = types.StringValue(s.EnvdVersion)
	}
	if s.EnvdAccessToken != "" || m.EnvdAccessToken.IsUnknown() {
		m.EnvdAccessToken = convert.OptionalString(s.EnvdAccessToken)
	}
	if s.TrafficAccessToken != "" || m.TrafficAccessToken.IsUnknown() {
		m.TrafficAccessToken = convert.OptionalString(s.TrafficAccessToken)
	}
	m.Domain = types.StringValue(sandboxDomain(s.Domain, m.Domain, providerDomain))
	m.setMCPURL()
}

// applyDetail copies what GET /sandboxes/{id} tells.
func (m *sandboxResourceModel) applyDetail(d *e2b.SandboxDetail, providerDomain string) {
	m.sandboxReported = reportedDetail(d)
	if d.EnvdAccessToken != "" || m.EnvdAccessToken.IsUnknown() {
		m.EnvdAccessToken = convert.OptionalString(d.EnvdAccessToken)
	}
	if m.TrafficAccessToken.IsUnknown() {
		m.TrafficAccessToken = types.StringNull() // Only create and connect responses carry it.
	}
	m.Domain = types.StringValue(sandboxDomain(d.Domain, m.Domain, providerDomain))
	m.setMCPURL()
	m.Paused = types.BoolValue(d.Paused())
	m.MetadataAll = convert.StringMapValue(d.Metadata)

	if d.Lifecycle != nil {
		m.AutoPause = types.BoolValue(d.Lifecycle.PausesOnTimeout())
		m.AutoResume = types.BoolValue(d.Lifecycle.AutoResume)
	}
	if d.AllowInternetAccess != nil {
		m.AllowInternetAccess = types.BoolValue(*d.AllowInternetAccess)
	}
}

// applyImported fills the inputs of a sandbox just imported, which only the API can tell, as a
// configuration that created this sandbox would have set them: metadata leaves out what
// default_metadata adds, and env_vars (never returned by E2B) stay null until the configuration
// gives them.
func (m *sandboxResourceModel) applyImported(d *e2b.SandboxDetail, defaultMetadata map[string]string) {
	m.Template = types.StringValue(d.TemplateID)
	if d.Alias != "" {
		m.Template = types.StringValue(d.Alias)
	}
	m.Secure = types.BoolValue(d.EnvdAccessToken != "")
	m.Timeout = customtypes.DurationValue(importedTimeout(d))
	if m.AllowInternetAccess.IsNull() || m.AllowInternetAccess.IsUnknown() {
		m.AllowInternetAccess = types.BoolValue(true)
	}
	if m.AutoPause.IsNull() || m.AutoPause.IsUnknown() {
		m.AutoPause = types.BoolValue(false)
	}
	if m.AutoResume.IsNull() || m.AutoResume.IsUnknown() {
		m.AutoResume = types.BoolValue(false)
	}
	m.Metadata = types.MapNull(types.StringType)
	if meta := ownMetadata(d.Metadata, defaultMetadata); len(meta) > 0 {
		m.Metadata = convert.StringMapValue(meta)
	}
	m.EnvVars = types.MapNull(types.StringType)
	m.Network = importedNetwork(d.Network, types.Int64Null())
	m.applyCreateOptionsDetail(d)
}

// ownMetadata is what remains of a sandbox's metadata without the entries default_metadata
// gives it (same key, same value).
func ownMetadata(all, defaults map[string]string) map[string]string {
	out := make(map[string]string, len(all))
	for k, v := range all {
		if dv, ok := defaults[k]; !ok || dv != v {
			out[k] = v
		}
	}
	return out
}

// importedTimeout estimates the configured timeout of an imported running sandbox from its
// remaining life span; E2B does not return the timeout itself.
func importedTimeout(d *e2b.SandboxDetail) time.Duration {
	if d.State != e2b.SandboxStateRunning || d.EndAt.Before(d.StartedAt) {
		return defaultSandboxTimeout
	}
	t := d.EndAt.Sub(d.StartedAt).Round(time.Second)
	if t < minSandboxTimeout || t > maxSandboxTimeout {
		return defaultSandboxTimeout
	}
	return t
}

// timeoutSeconds is the planned timeout as E2B takes it.
func (m *sandboxResourceModel) timeoutSeconds() int32 {
	return customtypes.WholeSeconds(customtypes.DurationOr(m.Timeout, defaultSandboxTimeout))
}

// importedNetwork converts the API's network config; nil or empty gives null. proxyVersion is
// the state's password_wo_version (E2B knows nothing of it).
func importedNetwork(n *e2b.NetworkConfig, proxyVersion types.Int64) types.Object {
	if n == nil || (len(n.AllowOut) == 0 && len(n.DenyOut) == 0 && n.MaskRequestHost == "" &&
		(n.AllowPublicTraffic == nil || *n.AllowPublicTraffic) && len(n.Rules) == 0 && n.EgressProxy == nil &&
		len(n.HTTPSPorts) == 0) {
		return types.ObjectNull(sandboxNetworkAttrTypes)
	}
	// Null when public: that is E2B's default and what a configuration usually leaves out.
	public := types.BoolNull()
	if n.AllowPublicTraffic != nil && !*n.AllowPublicTraffic {
		public = types.BoolValue(false)
	}
	var allow, deny []string
	if len(n.AllowOut) > 0 {
		allow = n.AllowOut
	}
	if len(n.DenyOut) > 0 {
		deny = n.DenyOut
	}
	return types.ObjectValueMust(sandboxNetworkAttrTypes, map[string]attr.Value{
		"allow_out":            convert.StringSetValue(allow),
		"deny_out":             convert.StringSetValue(deny),
		"allow_public_traffic": public,
		"mask_request_host":    convert.OptionalString(n.MaskRequestHost),
		"rules":                networkRulesValue(n.Rules),
		"egress_proxy":         egressProxyResourceValue(n.EgressProxy, proxyVersion),
		"https_ports":          httpsPortsValue(n.HTTPSPorts),
	})
}

// setMCPURL sets mcp_url from the ID and domain, for a sandbox with mcp.
func (m *sandboxResourceModel) setMCPURL() {
	m.MCPURL = types.StringNull()
	if !m.MCP.IsNull() && !m.MCP.IsUnknown() && m.ID.ValueString() != "" && m.Domain.ValueString() != "" {
		m.MCPURL = types.StringValue(e2b.MCPURL(m.ID.ValueString(), m.Domain.ValueString()))
	}
}

// sandboxDomain picks the sandbox's traffic domain: the API's value, else what is already
// known, else the provider's domain (E2B leaves it empty for the default cluster and for paused
// sandboxes).
func sandboxDomain(fromAPI string, known types.String, providerDomain string) string {
	if fromAPI != "" {
		return fromAPI
	}
	if !known.IsNull() && !known.IsUnknown() && known.ValueString() != "" {
		return known.ValueString()
	}
	return providerDomain
}

// nullUnknownComputed replaces values still unknown after a partial apply with null, so state
// never holds unknowns, and leaves the access tokens out when store_access_tokens is false.
func (m *sandboxResourceModel) nullUnknownComputed() {
	if m.StoreAccessTokens.IsNull() || m.StoreAccessTokens.IsUnknown() {
		m.StoreAccessTokens = types.BoolValue(true) // State from before the attribute existed, or an import.
	}
	if !m.StoreAccessTokens.ValueBool() {
		m.EnvdAccessToken = types.StringNull()
		m.TrafficAccessToken = types.StringNull()
	}
	// What a fork copies, and what only a read tells, is unknown until read.
	convert.NullUnknowns(m)
}
