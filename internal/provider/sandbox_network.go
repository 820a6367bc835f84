package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	eschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// The egress settings of network that e2b_sandbox and the ephemeral e2b_sandbox share: rules
// whose headers E2B's egress sets on matching requests, and a SOCKS5 proxy for all egress.
const (
	descNetworkRules = "Headers E2B's egress sets on the sandbox's outgoing HTTP and HTTPS requests, by destination " +
		"domain (`api.example.com`, or `*.example.com` for its subdomains at any depth; lower case, at most 10). " +
		"A header replaces one of the same name the request carries. Values may hold placeholders that E2B fills in " +
		"per request, so the value never enters the sandbox: `provider::e2b::secret_ref(name)` (a secret's current " +
		"value: rotating the secret changes what later requests carry) and `provider::e2b::iam_token_ref(name)` (a fresh " +
		"workload token of a name declared in `iam`). A rule does not open the way: `allow_out` must admit the domain " +
		"(with `deny_out = [\"0.0.0.0/0\"]`), which is checked at plan time."
	descRuleHeaders = "Header name to value, 1 to 20; names that differ only in case are one header, refused. " +
		"Sensitive: a value may be a literal credential."
	descEgressProxy = "A SOCKS5 proxy that the sandbox's outgoing TCP is tunnelled through after `allow_out` and " +
		"`deny_out` have filtered it (domains are resolved by the proxy). The sandbox does not see it."
	descProxyAddress  = "`host:port` of the SOCKS5 proxy, such as `proxy.example.com:1080`."
	descProxyUsername = "SOCKS5 username (RFC 1929), at most 255 bytes; required with a password."
)

// ephemeralNetworkEgressAttributes are rules and egress_proxy in the ephemeral e2b_sandbox's
// network. Nothing of an ephemeral resource is stored, so its proxy password is a plain
// sensitive attribute.
func ephemeralNetworkEgressAttributes() map[string]eschema.Attribute {
	return map[string]eschema.Attribute{
		"rules": eschema.MapNestedAttribute{
			MarkdownDescription: descNetworkRules,
			Optional:            true,
			Validators:          ruleDomainValidators(),
			NestedObject: eschema.NestedAttributeObject{Attributes: map[string]eschema.Attribute{
				"headers": eschema.MapAttribute{MarkdownDescription: descRuleHeaders, Required: true, Sensitive: true,
					ElementType: types.StringType, Validators: ruleHeadersValidators()},
			}},
		},
		"egress_proxy": eschema.SingleNestedAttribute{
			MarkdownDescription: descEgressProxy,
			Optional:            true,
			Validators:          []validator.Object{validators.EgressProxyCredentials{Password: "password"}},
			Attributes: map[string]eschema.Attribute{
				"address":  eschema.StringAttribute{MarkdownDescription: descProxyAddress, Required: true, Validators: proxyAddressValidators()},
				"username": eschema.StringAttribute{MarkdownDescription: descProxyUsername, Optional: true, Validators: proxyCredentialValidators()},
				"password": eschema.StringAttribute{MarkdownDescription: "SOCKS5 password, at most 255 bytes. Sensitive.",
					Optional: true, Sensitive: true, Validators: proxyCredentialValidators()},
			},
		},
	}
}

// sandboxNetworkModel maps the network attribute of both sandbox types.
type sandboxNetworkModel struct {
	AllowOut           types.Set    `tfsdk:"allow_out"`
	DenyOut            types.Set    `tfsdk:"deny_out"`
	AllowPublicTraffic types.Bool   `tfsdk:"allow_public_traffic"`
	MaskRequestHost    types.String `tfsdk:"mask_request_host"`
	Rules              types.Map    `tfsdk:"rules"`
	EgressProxy        types.Object `tfsdk:"egress_proxy"` // its attributes differ by type
	HTTPSPorts         types.Set    `tfsdk:"https_ports"`
}

// ruleModel is one domain's rule.
type ruleModel struct {
	Headers types.Map `tfsdk:"headers"`
}

var ruleAttrTypes = map[string]attr.Type{"headers": types.MapType{ElemType: types.StringType}}

// egressProxyResourceAttrTypes is egress_proxy of e2b_sandbox: the password is write-only.
var egressProxyResourceAttrTypes = map[string]attr.Type{
	"address": types.StringType, "username": types.StringType,
	"password_wo": types.StringType, "password_wo_version": types.Int64Type,
}

func ruleDomainValidators() []validator.Map {
	return []validator.Map{
		mapvalidator.SizeAtMost(e2b.MaxRuleDomains),
		mapvalidator.KeysAre(validators.StringRule{Desc: "must be a rule domain", Summary: "Invalid network rule domain",
			Check: validators.FromError(e2b.ValidateRuleDomain)}),
	}
}

func ruleHeadersValidators() []validator.Map {
	return []validator.Map{
		mapvalidator.SizeBetween(1, e2b.MaxHeadersPerRule),
		mapvalidator.KeysAre(stringvalidator.RegexMatches(e2b.HeaderNamePattern, "must be an HTTP header name")),
		validators.HeaderNamesDistinct{},
	}
}

func proxyAddressValidators() []validator.String {
	return []validator.String{validators.StringRule{Desc: "must be host:port", Summary: "Invalid egress proxy address",
		Check: func(s string) string {
			return validators.FromError(func(a string) error { return e2b.ValidateEgressProxy(e2b.EgressProxy{Address: a}) })(s)
		}}}
}

func proxyCredentialValidators() []validator.String {
	return []validator.String{stringvalidator.LengthBetween(1, e2b.MaxEgressProxyCred)}
}

// resourceNetworkEgressAttributes are rules and egress_proxy in e2b_sandbox's network.
func resourceNetworkEgressAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"rules": schema.MapNestedAttribute{
			MarkdownDescription: descNetworkRules + " Changed in place.",
			Optional:            true,
			Validators:          ruleDomainValidators(),
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"headers": schema.MapAttribute{MarkdownDescription: descRuleHeaders, Required: true, Sensitive: true,
					ElementType: types.StringType, Validators: ruleHeadersValidators()},
			}},
		},
		"egress_proxy": schema.SingleNestedAttribute{
			MarkdownDescription: descEgressProxy + " Changed in place.",
			Optional:            true,
			Validators:          []validator.Object{validators.EgressProxyCredentials{Password: "password_wo"}},
			Attributes: map[string]schema.Attribute{
				"address":  schema.StringAttribute{MarkdownDescription: descProxyAddress, Required: true, Validators: proxyAddressValidators()},
				"username": schema.StringAttribute{MarkdownDescription: descProxyUsername, Optional: true, Validators: proxyCredentialValidators()},
				"password_wo": schema.StringAttribute{
					MarkdownDescription: "SOCKS5 password, at most 255 bytes. Write-only: never in plan or state, and E2B never " +
						"returns it. Sent with every change of the network's egress settings; change `password_wo_version` " +
						"to send a new one on its own. Needs Terraform 1.11+ or OpenTofu 1.11+.",
					Optional: true, WriteOnly: true, Sensitive: true, Validators: proxyCredentialValidators(),
				},
				"password_wo_version": schema.Int64Attribute{
					MarkdownDescription: "Any number; changing it sends `password_wo` again (in place).",
					Optional:            true, Validators: []validator.Int64{int64validator.AtLeast(0)},
				},
			},
		},
	}
}

// proxyPasswordFrom reads the write-only egress proxy password from the configuration (the
// only place it exists); "" when none is set.
func proxyPasswordFrom(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) string {
	var pw types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("network").AtName("egress_proxy").AtName("password_wo"), &pw)...)
	return pw.ValueString()
}

// networkRulesFrom reads the rules attribute; nil when null or unknown.
func networkRulesFrom(ctx context.Context, rules types.Map) (map[string][]e2b.NetworkRule, diag.Diagnostics) {
	if rules.IsNull() || rules.IsUnknown() {
		return nil, nil
	}
	var byDomain map[string]ruleModel
	diags := rules.ElementsAs(ctx, &byDomain, false)
	out := make(map[string][]e2b.NetworkRule, len(byDomain))
	for domain, r := range byDomain {
		headers, d := convert.StringMapFrom(ctx, r.Headers)
		diags.Append(d...)
		out[domain] = []e2b.NetworkRule{{Headers: headers}}
	}
	return out, diags
}

// networkRulesValue converts rules read from E2B; none gives null.
func networkRulesValue(rules map[string][]e2b.NetworkRule) types.Map {
	if len(rules) == 0 {
		return types.MapNull(types.ObjectType{AttrTypes: ruleAttrTypes})
	}
	elems := make(map[string]attr.Value, len(rules))
	for domain, rs := range rules {
		headers := map[string]string{}
		for _, r := range rs { // E2B keeps one rule per domain; later ones would win.
			for k, v := range r.Headers {
				headers[k] = v
			}
		}
		elems[domain] = types.ObjectValueMust(ruleAttrTypes, map[string]attr.Value{"headers": convert.StringMapValue(headers)})
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: ruleAttrTypes}, elems)
}

// egressProxyFrom reads address and username (and password, where the type has a plain one)
// from an egress_proxy object; nil when null or unknown.
func egressProxyFrom(o types.Object) *e2b.EgressProxy {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	attrs := o.Attributes()
	str := func(name string) string {
		if v, ok := attrs[name].(types.String); ok {
			return v.ValueString()
		}
		return ""
	}
	return &e2b.EgressProxy{Address: str("address"), Username: str("username"), Password: str("password")}
}

// egressProxyResourceValue converts a proxy read from E2B for e2b_sandbox; the password and its
// version are what the configuration had (E2B never returns the password).
func egressProxyResourceValue(p *e2b.EgressProxy, version types.Int64) types.Object {
	if p == nil || p.Address == "" {
		return types.ObjectNull(egressProxyResourceAttrTypes)
	}
	return types.ObjectValueMust(egressProxyResourceAttrTypes, map[string]attr.Value{
		"address": types.StringValue(p.Address), "username": convert.OptionalString(p.Username),
		"password_wo": types.StringNull(), "password_wo_version": version,
	})
}

// validateNetworkRules checks rules against E2B's limits, allow_out and the declared iam tokens,
// once all of them are known.
func validateNetworkRules(ctx context.Context, n *sandboxNetworkModel, iamTokens []string, iamKnown bool, diags *diag.Diagnostics) {
	if n == nil || !convert.FullyKnown(ctx, n.Rules) || !convert.FullyKnown(ctx, n.AllowOut) || !iamKnown {
		return // Checked again once everything is known.
	}
	rules, d := networkRulesFrom(ctx, n.Rules)
	diags.Append(d...)
	if len(rules) == 0 {
		return
	}
	at := path.Root("network").AtName("rules")
	if err := e2b.ValidateNetworkRules(rules); err != nil {
		diags.AddAttributeError(at, "Invalid network rules", "network.rules "+err.Error()+".")
		return
	}
	allow, _ := convert.StringSetFrom(ctx, n.AllowOut)
	for _, domain := range e2b.RuleDomains(rules) {
		if !e2b.RuleDomainAdmitted(domain, allow) {
			diags.AddAttributeError(at.AtMapKey(domain), "Network rule for a domain allow_out does not admit",
				fmt.Sprintf("network.rules has a rule for %q, but network.allow_out does not admit it, so no request "+
					"would reach it and the rule would never apply. Add %q (or a wildcard covering it) to allow_out, "+
					"with \"0.0.0.0/0\" in deny_out.", domain, domain))
		}
		for _, r := range rules[domain] {
			if err := e2b.ValidateRuleHeaders(r.Headers, iamTokens); err != nil {
				diags.AddAttributeError(at.AtMapKey(domain).AtName("headers"), "Invalid network rule header",
					fmt.Sprintf("network.rules[%q]: %s.", domain, err))
			}
		}
	}
}
