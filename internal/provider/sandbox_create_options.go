package provider

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxCreateOptions are the create settings the e2b_sandbox resource and the e2b_sandbox
// ephemeral resource share; both embed it in their models.
type sandboxCreateOptions struct {
	Template            types.String `tfsdk:"template"`
	Secure              types.Bool   `tfsdk:"secure"`
	AllowInternetAccess types.Bool   `tfsdk:"allow_internet_access"`
	Network             types.Object `tfsdk:"network"`
	Metadata            types.Map    `tfsdk:"metadata"`
	EnvVars             types.Map    `tfsdk:"env_vars"`
	VolumeMounts        types.Map    `tfsdk:"volume_mounts"`
}

// defaultTemplate is the template of a sandbox that names none, as in E2B's SDKs.
const defaultTemplate = "base"

// Descriptions shared by both sandbox types.
const (
	descTemplate = "Template ID or name (`name`, `namespace/name` or `namespace/name:tag`). Default `base`."
	descSecure   = "Require `envd_access_token` for all traffic to the sandbox daemon. Default `true`. `false` is deprecated: " +
		"E2B's v2 create, which the provider uses, always secures a sandbox, so a sandbox with `secure = false` is " +
		"created through E2B's deprecated v1 create (`POST /sandboxes`) while E2B serves it, with a warning at plan " +
		"time; once E2B retires v1, its create fails."
	descEnvVars      = "Environment variables for every process in the sandbox. Sensitive."
	descMetadata     = "Labels stored with the sandbox (filterable in `e2b_sandboxes`). Merged over the provider's `default_metadata`."
	descVolumeMounts = "Volumes to mount, by volume name (`e2b_volume.<x>.name`) to an absolute path in the " +
		"sandbox, for example `{ (e2b_volume.data.name) = \"/mnt/data\" }`. Paths must be absolute, in clean form " +
		"(no trailing `/`, `//`, `.` or `..`, which E2B refuses), not `/`, and each used once."

	descAllowOut = "Outgoing destinations always allowed: IP addresses, CIDR blocks or domains (`example.com`, `*.example.com`). " +
		"Domains require `0.0.0.0/0` in `deny_out`. Allow rules win over deny rules."
	descDenyOut            = "Outgoing destinations blocked: IP addresses or CIDR blocks only (`0.0.0.0/0` blocks everything not allowed)."
	descAllowPublicTraffic = "Let anyone reach the sandbox's ports. When `false`, requests need the `e2b-traffic-access-token` header " +
		"(`traffic_access_token`) and `secure` must be `true`. E2B's default is `true`."
	descMaskRequestHost = "Host (`host` or `host:port`) written into the `Host` header of requests forwarded to the sandbox."
)

// network reads the network attribute; nil when not set.
func (o *sandboxCreateOptions) network(ctx context.Context) (*sandboxNetworkModel, diag.Diagnostics) {
	if o.Network.IsNull() || o.Network.IsUnknown() {
		return nil, nil
	}
	var n sandboxNetworkModel
	diags := o.Network.As(ctx, &n, basetypes.ObjectAsOptions{})
	return &n, diags
}

// createRequest builds the API request from planned (or configured) options.
func (o *sandboxCreateOptions) createRequest(ctx context.Context, data *base.ProviderData, timeout time.Duration) (e2b.CreateSandboxRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := e2b.CreateSandboxRequest{
		TemplateID:          o.Template.ValueString(),
		Timeout:             customtypes.WholeSeconds(timeout),
		Secure:              convert.BoolPtr(o.Secure),
		AllowInternetAccess: convert.BoolPtr(o.AllowInternetAccess),
	}
	if req.TemplateID == "" {
		req.TemplateID = defaultTemplate
	}
	own, d := convert.StringMapFrom(ctx, o.Metadata)
	diags.Append(d...)
	req.Metadata = data.MergedMetadata(own)
	env, d := convert.StringMapFrom(ctx, o.EnvVars)
	diags.Append(d...)
	if len(env) > 0 {
		req.EnvVars = env
	}
	mounts, d := convert.StringMapFrom(ctx, o.VolumeMounts)
	diags.Append(d...)
	req.VolumeMounts = volumeMountsFrom(mounts)
	n, d := o.network(ctx)
	diags.Append(d...)
	if n != nil {
		nc := &e2b.NetworkConfig{AllowPublicTraffic: convert.BoolPtr(n.AllowPublicTraffic), MaskRequestHost: n.MaskRequestHost.ValueString()}
		nc.AllowOut, d = convert.StringSetFrom(ctx, n.AllowOut)
		diags.Append(d...)
		nc.DenyOut, d = convert.StringSetFrom(ctx, n.DenyOut)
		diags.Append(d...)
		nc.Rules, d = networkRulesFrom(ctx, n.Rules)
		diags.Append(d...)
		nc.EgressProxy = egressProxyFrom(n.EgressProxy)
		nc.HTTPSPorts, d = httpsPortsFrom(ctx, n.HTTPSPorts)
		diags.Append(d...)
		req.Network = nc
	}
	return req, diags
}

// validate rejects combinations E2B would refuse, before any call is made. iamTokens are the
// workload tokens the sandbox declares (iamKnown false while they are unknown).
func (o *sandboxCreateOptions) validate(ctx context.Context, iamTokens []string, iamKnown bool, diags *diag.Diagnostics) {
	if o.Secure.Equal(types.BoolValue(false)) {
		diags.AddAttributeWarning(path.Root("secure"), "secure = false uses E2B's deprecated v1 create",
			"E2B's v2 create (POST /v2/sandboxes) always secures a sandbox, so the provider creates this one through "+
				"the v1 create (POST /sandboxes), which E2B has deprecated. Once E2B no longer serves it, the create "+
				"fails. Remove secure = false (a secure sandbox's daemon needs envd_access_token) to use v2.")
	}
	o.validateVolumeMounts(ctx, diags)
	n, d := o.network(ctx)
	diags.Append(d...)
	if n == nil {
		return
	}
	validateNetworkRules(ctx, n, iamTokens, iamKnown, diags)
	// secure defaults to true; only an explicit false conflicts.
	if n.AllowPublicTraffic.Equal(types.BoolValue(false)) && o.Secure.Equal(types.BoolValue(false)) {
		diags.AddAttributeError(path.Root("network").AtName("allow_public_traffic"),
			"allow_public_traffic = false needs secure = true",
			"E2B protects non-public sandbox traffic with a token that only secure sandboxes have. "+
				"Set secure = true (the default) or remove allow_public_traffic = false.")
	}
	if !convert.FullyKnown(ctx, n.AllowOut) || !convert.FullyKnown(ctx, n.DenyOut) {
		return // Checked again once every rule is known.
	}
	allow, _ := convert.StringSetFrom(ctx, n.AllowOut)
	deny, _ := convert.StringSetFrom(ctx, n.DenyOut)
	for _, a := range allow {
		if !validators.IsIPOrCIDR(a) && !slices.Contains(deny, "0.0.0.0/0") {
			diags.AddAttributeError(path.Root("network").AtName("allow_out"),
				"Domains in allow_out need deny_out = [\"0.0.0.0/0\"]",
				"allow_out contains the domain "+convert.Quote(a)+"; E2B accepts domains only when all other egress is denied. "+
					"Add \"0.0.0.0/0\" to network.deny_out, or use IP addresses and CIDR blocks.")
			return
		}
	}
}

// validateVolumeMounts applies E2B's mount rules once every mount is known.
func (o *sandboxCreateOptions) validateVolumeMounts(ctx context.Context, diags *diag.Diagnostics) {
	if !convert.FullyKnown(ctx, o.VolumeMounts) {
		return
	}
	mounts, d := convert.StringMapFrom(ctx, o.VolumeMounts)
	diags.Append(d...)
	if err := e2b.ValidateVolumeMounts(volumeMountsFrom(mounts)); err != nil {
		diags.AddAttributeError(path.Root("volume_mounts"), "Invalid volume_mounts", err.Error()+".")
	}
}

// volumeMountsFrom turns name → path into E2B's mounts, sorted by path.
func volumeMountsFrom(m map[string]string) []e2b.VolumeMount {
	out := make([]e2b.VolumeMount, 0, len(m))
	for name, p := range m {
		out = append(out, e2b.VolumeMount{Name: name, Path: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if len(out) == 0 {
		return nil
	}
	return out
}
