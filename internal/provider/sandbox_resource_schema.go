package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// A sandbox's life span: E2B counts it in whole seconds, up to 24 h on the Pro plan.
const (
	minSandboxTimeout     = time.Second
	maxSandboxTimeout     = 24 * time.Hour
	defaultSandboxTimeout = 5 * time.Minute
)

func (r *sandboxResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An E2B sandbox: an isolated VM started from a template. Sandboxes end by design " +
			"when their `timeout` runs out: a sandbox that was killed is dropped from state with a warning and " +
			"re-created by the next apply; one that auto-paused reads as `paused = true`, so `paused = false` " +
			"plans a resume. `timeout`, `paused`, `allow_internet_access` and the egress rules in `network` " +
			"change in place; other inputs replace the sandbox.",
		Attributes: map[string]schema.Attribute{
			"snapshot_on_destroy": snapshotOnDestroyAttribute(),
			"template": schema.StringAttribute{
				MarkdownDescription: descTemplate + " With `mcp` the default is `mcp-gateway`, as in E2B's SDK. A fork's is its " +
					"source's (as E2B names it), known after the apply. " +
					"Changing it replaces the sandbox, except for the tag an import cannot read back: after an " +
					"import, `python-app:prod` for the imported `python-app` is recorded in place.",
				Optional: true,
				Computed: true,
				PlanModifiers: []planmodifier.String{forkCopiedString{forkCopiedDefault[string]{defaultTemplate}},
					stringplanmodifier.RequiresReplaceIf(templateChanged, "Changing it replaces the sandbox.",
						"Changing it replaces the sandbox.")},
				Validators: validators.TemplateRef(),
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How long the sandbox lives from creation, resume or the last change of this value, "+
					"as a Go duration such as `\"15m\"` or `\"2h30m\"`: %s to %s in whole seconds (your E2B plan may allow less). "+
					"Default `\"%s\"`. Changed in place: the sandbox then ends this long after the apply. E2B does not report it: "+
					"an import (and the list resource) reads a running sandbox's `end_at - started_at`, a paused one's as the default.",
					convert.ShortDuration(minSandboxTimeout), convert.ShortDuration(maxSandboxTimeout), convert.ShortDuration(defaultSandboxTimeout)),
				Optional:   true,
				Computed:   true,
				CustomType: customtypes.GoDurationType{},
				Default:    stringdefault.StaticString(convert.ShortDuration(defaultSandboxTimeout)),
				Validators: []validator.String{validators.WholeSecondsBetween(minSandboxTimeout, maxSandboxTimeout)},
			},
			"paused": schema.BoolAttribute{
				MarkdownDescription: "Whether the sandbox is paused (memory and processes are kept). Changed in place: " +
					"`true` pauses it, `false` resumes it with `timeout`. Reads `true` when the sandbox auto-paused. Default `false`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"pause_memory": schema.BoolAttribute{
				MarkdownDescription: "Whether `paused = true` keeps memory and processes (`true`, E2B's default) or only the " +
					"filesystem (`false`: no memory snapshot, so `paused = false` reboots the sandbox; files stay, processes " +
					"and open connections do not, and `auto_resume` cannot wake it). The same choice for the pause at the " +
					"timeout is `auto_pause_memory`. Changed in place: it applies to the next pause.",
				Optional: true,
			},
			"resume_memory": schema.BoolAttribute{
				MarkdownDescription: "Whether `paused = false` restores the memory and processes the pause kept (`true`, E2B's " +
					"default) or " + descResumeFromDisk + " Changed in place: it applies to the next resume.",
				Optional: true,
			},
			"auto_pause": schema.BoolAttribute{
				MarkdownDescription: "Pause instead of kill when the timeout runs out. Default `false`; a fork's is its source's. " +
					"Changing it replaces the sandbox.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: forkCopiedReplace(false),
			},
			"auto_resume": schema.BoolAttribute{
				MarkdownDescription: "Resume a paused sandbox automatically when traffic reaches it. Default `false`; a fork's is " +
					"its source's. Changing it replaces the sandbox.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: forkCopiedReplace(false),
			},
			"secure": schema.BoolAttribute{
				MarkdownDescription: descSecure + " A fork's is its source's. Changing it replaces the sandbox.",
				Optional:            true,
				Computed:            true,
				PlanModifiers:       forkCopiedReplace(true),
			},
			"allow_internet_access": schema.BoolAttribute{
				MarkdownDescription: "Allow outgoing internet traffic (`false` behaves like `deny_out = [\"0.0.0.0/0\"]`). Default `true`; " +
					"a fork's is its source's. Changed in place.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{forkCopiedBool{forkCopiedDefault[bool]{true}}},
			},
			"network": schema.SingleNestedAttribute{
				MarkdownDescription: "Network settings. The egress ones (`allow_out`, `deny_out`, `rules`, `egress_proxy`) change in " +
					"place, together in one update (E2B replaces the egress configuration as a whole); changing " +
					"`allow_public_traffic`, `mask_request_host` or `https_ports` replaces the sandbox. Every refresh reads them back " +
					"from E2B (all but the proxy's `password_wo`), so a change made outside Terraform shows in the plan.",
				Optional:      true,
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(networkIngressChanged, "Changing allow_public_traffic, mask_request_host or https_ports replaces the sandbox.", "Changing `allow_public_traffic`, `mask_request_host` or `https_ports` replaces the sandbox.")},
				Attributes: base.WithAttributes(resourceNetworkEgressAttributes(), map[string]schema.Attribute{
					"allow_out": schema.SetAttribute{
						MarkdownDescription: descAllowOut,
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          validators.AllowOut(),
					},
					"deny_out": schema.SetAttribute{
						MarkdownDescription: descDenyOut,
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          validators.DenyOut(),
					},
					"allow_public_traffic": schema.BoolAttribute{
						MarkdownDescription: descAllowPublicTraffic,
						Optional:            true,
					},
					"mask_request_host": schema.StringAttribute{
						MarkdownDescription: descMaskRequestHost,
						Optional:            true,
						Validators:          []validator.String{validators.HostPort()},
					},
					"https_ports": schema.SetAttribute{
						MarkdownDescription: descHTTPSPorts + " Changing them replaces the sandbox (E2B sets them at create only).",
						Optional:            true,
						ElementType:         types.Int64Type,
						Validators:          httpsPortsValidators(),
					},
				}),
			},
			"metadata": schema.MapAttribute{
				MarkdownDescription: descMetadata + " The merged result is `metadata_all`, which is what E2B stores: a change that " +
					"alters `metadata_all` replaces the sandbox (E2B cannot change metadata); one that does not, such as moving a " +
					"key to `default_metadata` with the same value, changes nothing.",
				Optional:    true,
				ElementType: types.StringType,
				Validators:  validators.Metadata(),
			},
			"env_vars": schema.MapAttribute{
				MarkdownDescription: descEnvVars + " Changing them replaces the sandbox; " + importUnreadNote,
				Optional:            true,
				Sensitive:           true,
				ElementType:         types.StringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(envVarsChanged,
					"Changing env_vars replaces the sandbox, except right after an import.",
					"Changing `env_vars` replaces the sandbox, except right after an import.")},
				Validators: validators.EnvVars(),
			},

			"store_access_tokens": schema.BoolAttribute{
				MarkdownDescription: "Keep `envd_access_token` and `traffic_access_token` in state. Default `true`. With `false` both " +
					"read as null and never reach state or plan files readable (an `e2b_sandbox_file` keeps the envd access in its " +
					"private state only sealed with a key derived from the API key, which can read it from E2B anyway); " +
					"read them at run time with the `e2b_sandbox_access` " +
					"ephemeral resource instead. Changed in place, without touching the sandbox's life: switching back to " +
					"`true` stores both tokens again (the traffic token of a paused sandbox only once it is resumed).",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"mcp_url": schema.StringAttribute{
				MarkdownDescription: "URL of the sandbox's MCP gateway (`https://50005-<id>.<domain>/mcp`), for sandboxes with " +
					"`mcp`; clients send its access token, which `ephemeral \"e2b_sandbox_access\"` reads (`mcp_token`) and " +
					"state never holds.",
				Computed:      true,
				PlanModifiers: stable,
			},
			"envd_access_token": schema.StringAttribute{
				MarkdownDescription: "Token for the sandbox daemon (envd), present when `secure` is `true` and `store_access_tokens` " +
					"is not `false`. Sensitive, but stored in state: see `store_access_tokens`.",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: stable,
			},
			"traffic_access_token": schema.StringAttribute{
				MarkdownDescription: "Token for the sandbox's ports when `network.allow_public_traffic` is `false` (header `e2b-traffic-access-token`). " +
					"E2B returns it only on create, resume and connect, so it is empty after an import. Null when `store_access_tokens` is `false`. Sensitive.",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: stable,
			},
			"domain": base.ComputedString("Domain of the sandbox's hosts (`<port>-<id>.<domain>`).", stable),
			"metadata_all": schema.MapAttribute{
				MarkdownDescription: "`metadata` merged over the provider's `default_metadata`: what E2B stores.",
				Computed:            true,
				ElementType:         types.StringType,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": base.ResourceTimeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
	for name, a := range sandboxCreateOptionAttributes() {
		resp.Schema.Attributes[name] = a
	}
	for name, a := range reportedSandboxResourceAttributes() {
		resp.Schema.Attributes[name] = a
	}
	withForkConflicts(resp.Schema.Attributes)
}

func (r *sandboxResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"sandbox_id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "Sandbox ID.",
			},
		},
	}
}
