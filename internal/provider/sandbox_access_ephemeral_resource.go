package provider

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ ephemeral.EphemeralResourceWithConfigure      = &sandboxAccessEphemeralResource{}
	_ ephemeral.EphemeralResourceWithValidateConfig = &sandboxAccessEphemeralResource{}
)

// NewSandboxAccessEphemeralResource returns the e2b_sandbox_access ephemeral resource.
func NewSandboxAccessEphemeralResource() ephemeral.EphemeralResource {
	return &sandboxAccessEphemeralResource{base.EphemeralConfig{TypeName: "_sandbox_access"}}
}

// sandboxAccessEphemeralResource reads how to reach an existing sandbox, at run time only.
type sandboxAccessEphemeralResource struct {
	base.EphemeralConfig
}

type sandboxAccessModel struct {
	sandboxAccessResults

	SandboxID types.String           `tfsdk:"sandbox_id"`
	Timeout   customtypes.GoDuration `tfsdk:"timeout"`
	Resume    types.Bool             `tfsdk:"resume"`
	MCPURL    types.String           `tfsdk:"mcp_url"`
	MCPToken  types.String           `tfsdk:"mcp_token"`
}

// sandboxAccessResults are the access details both ephemeral sandbox types return.
type sandboxAccessResults struct {
	Ports              types.List   `tfsdk:"ports"`
	Domain             types.String `tfsdk:"domain"`
	EnvdURL            types.String `tfsdk:"envd_url"`
	EnvdAccessToken    types.String `tfsdk:"envd_access_token"`
	TrafficAccessToken types.String `tfsdk:"traffic_access_token"`
	Hosts              types.Map    `tfsdk:"hosts"`
}

func (r *sandboxAccessEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attrs := sandboxAccessAttributes()
	attrs["sandbox_id"] = schema.StringAttribute{
		MarkdownDescription: "ID of a running (or, with `resume`, paused) sandbox.",
		Required:            true,
		Validators:          validators.SandboxID(),
	}
	attrs["timeout"] = schema.StringAttribute{
		MarkdownDescription: "Keep the sandbox running at least this long from the read, as a duration such as `\"10m\"` " +
			"(0s to 24h). It never shortens the sandbox's life. Default `\"0s\"`: the sandbox's end does not move.",
		Optional:   true,
		CustomType: customtypes.GoDurationType{},
		Validators: []validator.String{validators.WholeSecondsBetween(0, maxSandboxTimeout)},
	}
	attrs["resume"] = schema.BoolAttribute{
		MarkdownDescription: "Resume the sandbox when it is paused, to run for `timeout` (which must then be set). " +
			"Default `false`: a paused sandbox is an error, since its daemon cannot be reached.",
		Optional: true,
	}
	attrs["mcp_url"] = schema.StringAttribute{
		MarkdownDescription: "URL of the sandbox's MCP gateway (`https://50005-<id>.<domain>/mcp`) when it runs one; null otherwise.",
		Computed:            true,
	}
	attrs["mcp_token"] = schema.StringAttribute{
		MarkdownDescription: "Access token of the sandbox's MCP gateway (read from the sandbox, as E2B's SDK does); null " +
			"when the sandbox runs no gateway. Sensitive.",
		Computed:  true,
		Sensitive: true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "How to reach an existing sandbox's daemon (envd), ports and MCP gateway, read from E2B at run time " +
			"(its connect call) and never written to state or plan files. Use it with `store_access_tokens = false` on " +
			"`e2b_sandbox` to hand the tokens to another provider's configuration or to a write-only attribute without " +
			"storing them. Needs Terraform 1.10+ or OpenTofu 1.11+.",
		Attributes: attrs,
	}
}

// sandboxAccessAttributes are the result attributes both ephemeral sandbox types share.
func sandboxAccessAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ports": schema.ListAttribute{
			MarkdownDescription: "Ports whose host names `hosts` should hold.",
			Optional:            true,
			ElementType:         types.Int64Type,
			Validators:          []validator.List{listvalidator.ValueInt64sAre(int64validator.Between(1, 65535))},
		},
		"hosts": schema.MapAttribute{
			MarkdownDescription: "Host name of each port in `ports`, keyed by the port (`hosts[\"3000\"]`): " +
				"`<port>-<sandbox id>.<domain>`, as `provider::e2b::sandbox_host` computes it.",
			Computed:    true,
			ElementType: types.StringType,
		},
		"domain": schema.StringAttribute{
			MarkdownDescription: "Domain of the sandbox's hosts (`<port>-<id>.<domain>`).",
			Computed:            true,
		},
		"envd_url": schema.StringAttribute{
			MarkdownDescription: "Base URL of the sandbox daemon (envd). When the provider's `sandbox_url` is set this is that " +
				"URL, and requests must name the sandbox in the `E2b-Sandbox-Id` and `E2b-Sandbox-Port` (49983) headers.",
			Computed: true,
		},
		"envd_access_token": schema.StringAttribute{
			MarkdownDescription: "Token for envd (header `X-Access-Token`); null for a sandbox created with `secure = false`. Sensitive.",
			Computed:            true,
			Sensitive:           true,
		},
		"traffic_access_token": schema.StringAttribute{
			MarkdownDescription: "Token for the sandbox's ports when public traffic is off (header `e2b-traffic-access-token`); " +
				"null when E2B returns none. Sensitive.",
			Computed:  true,
			Sensitive: true,
		},
	}
}

func (r *sandboxAccessEphemeralResource) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	var m sandboxAccessModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !m.Resume.ValueBool() || m.Timeout.IsUnknown() {
		return
	}
	if customtypes.DurationOr(m.Timeout, 0) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("timeout"), "resume = true needs a timeout",
			"A resumed sandbox runs for timeout; set it, for example timeout = \"10m\".")
	}
}

func (r *sandboxAccessEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m sandboxAccessModel
	client, ok := base.ModelAndClient(ctx, req.Config.Get, &m, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	id := m.SandboxID.ValueString()
	detail, err := client.GetSandbox(ctx, id)
	if err != nil {
		base.AddClientAttributeError(&resp.Diagnostics, path.Root("sandbox_id"), "Could not read sandbox "+id, err)
		return
	}
	if detail.Paused() && !m.Resume.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("sandbox_id"), "Sandbox is paused",
			fmt.Sprintf("Sandbox %s is paused, so its daemon cannot be reached. Resume it first (paused = false on its "+
				"e2b_sandbox), or set resume = true and a timeout here.", id))
		return
	}
	sb, _, err := client.ConnectSandbox(ctx, id, customtypes.WholeSeconds(customtypes.DurationOr(m.Timeout, 0)))
	if err != nil {
		base.AddClientAttributeError(&resp.Diagnostics, path.Root("sandbox_id"), "Could not connect to sandbox "+id, err)
		return
	}
	resp.Diagnostics.Append(m.fill(client, sb, r.Data.Domain)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.MCPURL, m.MCPToken = types.StringNull(), types.StringNull()
	envd := client.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken, Domain: m.Domain.ValueString()})
	switch token, err := envd.ReadMCPToken(ctx); {
	case err == nil && token != "":
		m.MCPURL, m.MCPToken = types.StringValue(e2b.MCPURL(sb.SandboxID, m.Domain.ValueString())), types.StringValue(token)
	case err != nil && !e2b.IsNotFound(err):
		base.AddClientAttributeError(&resp.Diagnostics, path.Root("mcp_token"), "Could not read the MCP gateway token of sandbox "+id, err)
		return
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}

// fill sets the access details of a created or connected sandbox.
func (a *sandboxAccessResults) fill(client *e2b.Client, sb *e2b.Sandbox, providerDomain string) diag.Diagnostics {
	var diags diag.Diagnostics
	domain := sandboxDomain(sb.Domain, types.StringNull(), providerDomain)
	a.Domain = types.StringValue(domain)
	a.EnvdURL = types.StringValue(client.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, Domain: domain}).BaseURL())
	a.EnvdAccessToken = convert.OptionalString(sb.EnvdAccessToken)
	a.TrafficAccessToken = convert.OptionalString(sb.TrafficAccessToken)

	hosts := map[string]string{}
	for _, p := range a.Ports.Elements() {
		port, ok := p.(types.Int64)
		if !ok || port.IsNull() {
			continue
		}
		host, err := sandboxHost(sb.SandboxID, port.ValueInt64(), []string{domain})
		if err != nil {
			diags.AddAttributeError(path.Root("ports"), "Invalid port", err.Error())
			continue
		}
		hosts[strconv.FormatInt(port.ValueInt64(), 10)] = host
	}
	a.Hosts = convert.StringMapValue(hosts)
	return diags
}
