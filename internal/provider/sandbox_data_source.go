package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ datasource.DataSourceWithConfigure = &sandboxDataSource{}
)

// NewSandboxDataSource returns the e2b_sandbox data source.
func NewSandboxDataSource() datasource.DataSource {
	return &sandboxDataSource{base.DataSourceConfig{TypeName: "_sandbox"}}
}

// sandboxDataSource reads one sandbox by ID.
type sandboxDataSource struct {
	base.DataSourceConfig
}

type sandboxDataSourceModel struct {
	sandboxReported
	EnvdAccessToken     types.String `tfsdk:"envd_access_token"`
	Domain              types.String `tfsdk:"domain"`
	Metadata            types.Map    `tfsdk:"metadata"`
	AllowInternetAccess types.Bool   `tfsdk:"allow_internet_access"`
	AutoPause           types.Bool   `tfsdk:"auto_pause"`
	AutoResume          types.Bool   `tfsdk:"auto_resume"`
	AllowOut            types.List   `tfsdk:"allow_out"`
	DenyOut             types.List   `tfsdk:"deny_out"`
	OnTimeout           types.String `tfsdk:"on_timeout"`
	Rules               types.Map    `tfsdk:"rules"`
	EgressProxyAddress  types.String `tfsdk:"egress_proxy_address"`
	HTTPSPorts          types.Set    `tfsdk:"https_ports"`
	VolumeMounts        types.Map    `tfsdk:"volume_mounts"`
}

func (d *sandboxDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	attrs := reportedSandboxAttributes()
	maps.Copy(attrs, map[string]schema.Attribute{
		"id": schema.StringAttribute{Required: true, MarkdownDescription: "Sandbox ID.", Validators: validators.SandboxID()},
		"envd_access_token": schema.StringAttribute{
			Computed: true, Sensitive: true,
			MarkdownDescription: "Token for the sandbox daemon (envd), when the sandbox is secure. Sensitive, but stored " +
				"in state like every data source result; the `e2b_sandbox_access` ephemeral resource reads it without storing it.",
		},
		"domain":                computed("Domain of the sandbox's hosts (`<port>-<id>.<domain>`)."),
		"allow_internet_access": schema.BoolAttribute{Computed: true, MarkdownDescription: "Internet access setting, when it was set explicitly."},
		"auto_pause":            schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it pauses instead of being killed on timeout."},
		"auto_resume":           schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether traffic resumes it when paused."},
		"allow_out":             schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Egress allow rules."},
		"deny_out":              schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Egress deny rules."},
		"on_timeout":            computed("What happens when the timeout runs out: `kill` or `pause`, as E2B reports it."),
		"rules": schema.MapNestedAttribute{Computed: true, MarkdownDescription: "Network rules by domain, as in " +
			"`e2b_sandbox`'s `network.rules` (header values as stored: placeholders, never secret values E2B fills in).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"headers": schema.MapAttribute{Computed: true, Sensitive: true, ElementType: types.StringType,
					MarkdownDescription: "Headers E2B's egress sets. Sensitive: a value may be a literal credential."},
			}}},
		"egress_proxy_address": computed("`host:port` of the SOCKS5 egress proxy, when one is set (E2B never returns its password)."),
		"https_ports": schema.SetAttribute{Computed: true, ElementType: types.Int64Type,
			MarkdownDescription: "Ports whose servers E2B's proxy reaches over HTTPS, as in `e2b_sandbox`'s `network.https_ports`."},
		"volume_mounts": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Mounted volumes, by volume name to mount path."},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "One running or paused sandbox, by ID. Fails when the sandbox does not exist (expired or killed).",
		Attributes:          attrs,
	}
}

func (d *sandboxDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model sandboxDataSourceModel
	client := d.ConfigAndClient(ctx, req, resp, &model)
	if client == nil {
		return
	}
	id := model.ID.ValueString()
	s, err := client.GetSandbox(ctx, id)
	if err != nil {
		base.AddSandboxReadError(&resp.Diagnostics, path.Root("id"), id, "Could not read sandbox "+id, err)
		return
	}
	configured := model.ID // the ID as configured stays, however E2B spells it
	model.sandboxReported = reportedDetail(s)
	model.ID = configured
	model.EnvdAccessToken = convert.OptionalString(s.EnvdAccessToken)
	model.Domain = types.StringValue(sandboxDomain(s.Domain, types.StringNull(), d.Data.Domain))
	model.Metadata = convert.StringMapValue(s.Metadata)
	model.AllowInternetAccess = types.BoolNull()
	if s.AllowInternetAccess != nil {
		model.AllowInternetAccess = types.BoolValue(*s.AllowInternetAccess)
	}
	model.AutoPause, model.AutoResume = types.BoolNull(), types.BoolNull()
	if s.Lifecycle != nil {
		model.AutoPause = types.BoolValue(s.Lifecycle.PausesOnTimeout())
		model.AutoResume = types.BoolValue(s.Lifecycle.AutoResume)
	}
	var allow, deny []string
	if s.Network != nil {
		allow, deny = s.Network.AllowOut, s.Network.DenyOut
	}
	model.AllowOut, model.DenyOut = convert.StringListValue(allow), convert.StringListValue(deny)
	model.OnTimeout = types.StringNull()
	if s.Lifecycle != nil {
		model.OnTimeout = convert.OptionalString(s.Lifecycle.OnTimeout)
	}
	model.Rules, model.EgressProxyAddress, model.HTTPSPorts = networkRulesValue(nil), types.StringNull(), httpsPortsValue(nil)
	if s.Network != nil {
		model.Rules = networkRulesValue(s.Network.Rules)
		model.HTTPSPorts = httpsPortsValue(s.Network.HTTPSPorts)
		if s.Network.EgressProxy != nil {
			model.EgressProxyAddress = convert.OptionalString(s.Network.EgressProxy.Address)
		}
	}
	mounts := map[string]string{}
	for _, m := range s.VolumeMounts {
		mounts[m.Name] = m.Path
	}
	model.VolumeMounts = convert.StringMapValue(mounts)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
