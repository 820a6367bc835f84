package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

func (r *sandboxEphemeralResource) Schema(ctx context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attrs := sandboxAccessAttributes()
	attrs["id"] = schema.StringAttribute{MarkdownDescription: "Sandbox ID.", Computed: true}
	attrs["template_id"] = schema.StringAttribute{MarkdownDescription: "ID of the template the sandbox runs.", Computed: true}
	attrs["template"] = schema.StringAttribute{
		MarkdownDescription: descTemplate,
		Optional:            true,
		Computed:            true,
		Validators:          validators.TemplateRef(),
	}
	attrs["timeout"] = schema.StringAttribute{
		MarkdownDescription: "How long the sandbox lives without a renewal, as a duration such as `\"90s\"` or `\"10m\"` " +
			"(1s to 24h; your plan may allow less). Default `\"5m\"`. While the run needs the sandbox it is renewed before this " +
			"runs out; if the close cannot reach E2B, the sandbox ends at most this long after its last renewal.",
		Optional:   true,
		Computed:   true,
		CustomType: customtypes.GoDurationType{},
		Validators: []validator.String{validators.WholeSecondsBetween(minSandboxTimeout, maxSandboxTimeout)},
	}
	attrs["secure"] = schema.BoolAttribute{MarkdownDescription: descSecure, Optional: true, Computed: true}
	attrs["allow_internet_access"] = schema.BoolAttribute{
		MarkdownDescription: "Allow outgoing internet traffic (`false` behaves like `deny_out = [\"0.0.0.0/0\"]`). Default `true`.",
		Optional:            true,
		Computed:            true,
	}
	attrs["network"] = schema.SingleNestedAttribute{
		MarkdownDescription: "Network settings.",
		Optional:            true,
		Attributes: base.WithAttributes(ephemeralNetworkEgressAttributes(), map[string]schema.Attribute{
			"allow_out": schema.SetAttribute{MarkdownDescription: descAllowOut, Optional: true, ElementType: types.StringType,
				Validators: validators.AllowOut()},
			"deny_out": schema.SetAttribute{MarkdownDescription: descDenyOut, Optional: true, ElementType: types.StringType,
				Validators: validators.DenyOut()},
			"allow_public_traffic": schema.BoolAttribute{MarkdownDescription: descAllowPublicTraffic, Optional: true},
			"mask_request_host": schema.StringAttribute{MarkdownDescription: descMaskRequestHost, Optional: true,
				Validators: []validator.String{validators.HostPort()}},
			"https_ports": schema.SetAttribute{MarkdownDescription: descHTTPSPorts, Optional: true, ElementType: types.Int64Type,
				Validators: httpsPortsValidators()},
		}),
	}
	attrs["metadata"] = schema.MapAttribute{
		MarkdownDescription: descMetadata + " The provider adds `" + ephemeralSandboxLabel + " = \"true\"`.",
		Optional:            true,
		ElementType:         types.StringType,
		Validators:          validators.Metadata(),
	}
	attrs["env_vars"] = schema.MapAttribute{
		MarkdownDescription: descEnvVars,
		Optional:            true,
		Sensitive:           true,
		ElementType:         types.StringType,
		Validators:          validators.EnvVars(),
	}
	attrs["volume_mounts"] = schema.MapAttribute{
		MarkdownDescription: descVolumeMounts + " The volumes stay when the sandbox is killed.",
		Optional:            true,
		ElementType:         types.StringType,
		Validators:          validators.VolumeMounts(),
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A sandbox for one Terraform run, never written to state or plan files: created when the run " +
			"first needs it, renewed while the run goes on, and killed when the run is done with it, also when the run " +
			"fails or is interrupted. Plan and apply are separate runs and each gets its own sandbox. If the kill cannot " +
			"reach E2B the sandbox still ends at its `timeout`; such leftovers carry the metadata `" + ephemeralSandboxLabel +
			" = \"true\"`. Needs Terraform 1.10+ or OpenTofu 1.11+.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"timeouts": base.EphemeralTimeoutsBlock(ctx),
			"upload":   uploadBlock(),
		},
	}
}
