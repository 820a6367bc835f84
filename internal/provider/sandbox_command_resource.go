package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var (
	_ resource.Resource                     = &sandboxCommandResource{}
	_ resource.ResourceWithConfigure        = &sandboxCommandResource{}
	_ resource.ResourceWithValidateConfig   = &sandboxCommandResource{}
	_ resource.ResourceWithConfigValidators = &sandboxCommandResource{}
)

const (
	defaultCommandOutputBytes = 64 << 10
	maxCommandOutputBytes     = 16 << 20
)

// NewSandboxCommandResource returns the e2b_sandbox_command resource.
func NewSandboxCommandResource() resource.Resource { return &sandboxCommandResource{} }

// sandboxCommandResource runs a command when created, and again whenever an
// input or a trigger changes (by replacement). Its state records the run.
type sandboxCommandResource struct {
	data *ProviderData
}

type sandboxCommandModel struct {
	ID               types.String `tfsdk:"id"`
	SandboxID        types.String `tfsdk:"sandbox_id"`
	SandboxIDWO      types.String `tfsdk:"sandbox_id_wo"`
	Command          types.String `tfsdk:"command"`
	Cwd              types.String `tfsdk:"cwd"`
	Env              types.Map    `tfsdk:"env"`
	EnvWO            types.Map    `tfsdk:"env_wo"`
	User             types.String `tfsdk:"user"`
	Stdin            types.String `tfsdk:"stdin"`
	Timeout          types.String `tfsdk:"timeout"`
	Triggers         types.Map    `tfsdk:"triggers"`
	MaxOutputBytes   types.Int64  `tfsdk:"max_output_bytes"`
	AllowNonZeroExit types.Bool   `tfsdk:"allow_non_zero_exit"`

	ExitCode   types.Int64  `tfsdk:"exit_code"`
	Stdout     types.String `tfsdk:"stdout"`
	Stderr     types.String `tfsdk:"stderr"`
	Truncated  types.Bool   `tfsdk:"truncated"`
	TotalLines types.Int64  `tfsdk:"total_lines"`
	TimedOut   types.Bool   `tfsdk:"timed_out"`
}

func (r *sandboxCommandResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sandbox_command"
}

func (r *sandboxCommandResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replaceStr := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceMap := []planmodifier.Map{mapplanmodifier.RequiresReplace()}
	keepStr := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	keepBool := []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a shell command in a sandbox (`bash -l -c`) when created, and again whenever " +
			"`triggers` or any input except `max_output_bytes` and `allow_non_zero_exit` changes, and records its " +
			"exit code and the end of its output. A non-zero exit (or a timeout) fails the apply, and nothing is " +
			"stored, unless `allow_non_zero_exit` is set. Works with OpenTofu and every Terraform version; on " +
			"Terraform 1.14+ the `e2b_exec` action runs commands without keeping a record. Refresh does not " +
			"contact E2B (the record describes a past run) and destroy only forgets it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Random ID of this run.",
				Computed:            true,
				PlanModifiers:       keepStr,
			},
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox to run the command in. Exactly one of `sandbox_id` and `sandbox_id_wo` is required.",
				Optional:            true,
				PlanModifiers:       replaceStr,
				Validators:          []validator.String{sandboxIDValidator()},
			},
			"sandbox_id_wo": schema.StringAttribute{
				MarkdownDescription: "ID of the sandbox to run the command in, write-only: it accepts an ephemeral value such as " +
					"`ephemeral.e2b_sandbox.run.id` and is never stored. Since Terraform cannot tell when a write-only value " +
					"changes, the command runs again only when `triggers` or another input changes; " +
					"`triggers = { run = plantimestamp() }` runs it on every apply. Needs Terraform 1.11+ or OpenTofu 1.11+.",
				Optional:   true,
				WriteOnly:  true,
				Validators: []validator.String{sandboxIDValidator()},
			},
			"command": schema.StringAttribute{
				MarkdownDescription: "Shell command, run with `bash -l -c`.",
				Required:            true,
				PlanModifiers:       replaceStr,
			},
			"cwd": schema.StringAttribute{
				MarkdownDescription: "Working directory: absolute, `~/…`, or relative to the user's home. " +
					"Defaults to the template's working directory or the user's home.",
				Optional:      true,
				PlanModifiers: replaceStr,
			},
			"env": schema.MapAttribute{
				MarkdownDescription: "Environment variables for the command, added to the sandbox's own. Sensitive.",
				Optional:            true,
				Sensitive:           true,
				ElementType:         types.StringType,
				PlanModifiers:       replaceMap,
			},
			"env_wo": schema.MapAttribute{
				MarkdownDescription: "Environment variables for the command, write-only: they accept ephemeral values (for example " +
					"tokens from `e2b_sandbox_access`) and are never stored. Merged over `env`. Changing them alone does not " +
					"re-run the command. Needs Terraform 1.11+ or OpenTofu 1.11+.",
				Optional:    true,
				WriteOnly:   true,
				ElementType: types.StringType,
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User to run the command as, e.g. `root`. Defaults to the template's user (`user`).",
				Optional:            true,
				PlanModifiers:       replaceStr,
			},
			"stdin": schema.StringAttribute{
				MarkdownDescription: "Text written to the command's standard input, which is then closed. " +
					"Without it the command reads nothing (`/dev/null`). Sensitive.",
				Optional:      true,
				Sensitive:     true,
				PlanModifiers: replaceStr,
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the command may run before it is killed, as a duration such as " +
					"`\"90s\"` or `\"10m\"` (1s to 24h). Defaults to `\"10m\"`. A timeout is reported as exit code 124.",
				Optional:      true,
				PlanModifiers: replaceStr,
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Arbitrary values; changing any of them runs the command again. For example " +
					"`{ config = e2b_sandbox_file.config.sha256 }` re-runs it when a file changes.",
				Optional:      true,
				ElementType:   types.StringType,
				PlanModifiers: replaceMap,
			},
			"max_output_bytes": schema.Int64Attribute{
				MarkdownDescription: "How many bytes of the end of stdout and of stderr to keep (each), 1 to 16777216. " +
					"Default `65536`. The command's output is never held in memory beyond that. Changing it does not re-run the command.",
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultCommandOutputBytes),
				Validators: []validator.Int64{int64validator.Between(1, maxCommandOutputBytes)},
			},
			"allow_non_zero_exit": schema.BoolAttribute{
				MarkdownDescription: "Record a non-zero exit code (or a timeout) instead of failing the apply. " +
					"Default `false`. Changing it does not re-run the command.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"exit_code": schema.Int64Attribute{
				MarkdownDescription: "Exit code of the command; 124 when it was killed at its timeout, 128+N when a signal N ended it.",
				Computed:            true,
				PlanModifiers:       keepInt,
			},
			"stdout": schema.StringAttribute{
				MarkdownDescription: "The last `max_output_bytes` of standard output.",
				Computed:            true,
				PlanModifiers:       keepStr,
			},
			"stderr": schema.StringAttribute{
				MarkdownDescription: "The last `max_output_bytes` of standard error.",
				Computed:            true,
				PlanModifiers:       keepStr,
			},
			"truncated": schema.BoolAttribute{
				MarkdownDescription: "Whether `stdout` or `stderr` lost its beginning to `max_output_bytes`.",
				Computed:            true,
				PlanModifiers:       keepBool,
			},
			"total_lines": schema.Int64Attribute{
				MarkdownDescription: "Number of lines the command printed, stdout and stderr together.",
				Computed:            true,
				PlanModifiers:       keepInt,
			},
			"timed_out": schema.BoolAttribute{
				MarkdownDescription: "Whether the command was killed at its timeout.",
				Computed:            true,
				PlanModifiers:       keepBool,
			},
		},
	}
}

func (r *sandboxCommandResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := providerDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

func (r *sandboxCommandResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m sandboxCommandModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateExecConfig(m.Command, m.Timeout, &resp.Diagnostics)
}

func (r *sandboxCommandResource) ConfigValidators(_ context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("sandbox_id"), path.MatchRoot("sandbox_id_wo")),
	}
}

func (r *sandboxCommandResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan, cfg sandboxCommandModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...) // Write-only values are only in the configuration.
	if resp.Diagnostics.HasError() {
		return
	}
	plan.SandboxIDWO, plan.EnvWO = cfg.SandboxIDWO, cfg.EnvWO
	in, diags := plan.inputs(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	logOutput := func(b e2b.OutputBatch) {
		tflog.Debug(ctx, "command output", map[string]any{"stream": b.Stream.String(), "text": b.Text})
	}
	res, diags := runExec(ctx, r.data, in, in.execRequest(int(plan.MaxOutputBytes.ValueInt64()), logOutput))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if (res.TimedOut || res.ExitCode != 0) && !plan.AllowNonZeroExit.ValueBool() {
		// Nothing goes into state: the next apply runs the command again.
		resp.Diagnostics.Append(failedCommandDiagnostic(in, res))
		return
	}
	plan.SandboxIDWO, plan.EnvWO = types.StringNull(), types.MapNull(types.StringType)
	plan.ID = types.StringValue(randomHex(8))
	plan.ExitCode = types.Int64Value(int64(res.ExitCode))
	plan.Stdout = types.StringValue(res.Stdout)
	plan.Stderr = types.StringValue(res.Stderr)
	plan.Truncated = types.BoolValue(res.Truncated())
	plan.TotalLines = types.Int64Value(int64(res.TotalLines))
	plan.TimedOut = types.BoolValue(res.TimedOut)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read keeps the record as it is: it describes a run that already happened.
func (r *sandboxCommandResource) Read(_ context.Context, _ resource.ReadRequest, _ *resource.ReadResponse) {
}

// Update only changes max_output_bytes or allow_non_zero_exit, which apply to
// the next run.
func (r *sandboxCommandResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan sandboxCommandModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the record; a command cannot be undone.
func (r *sandboxCommandResource) Delete(_ context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
}

func (m sandboxCommandModel) inputs(ctx context.Context) (execInputs, diag.Diagnostics) {
	in, diags := execInputsFrom(ctx, sandboxIDOf(m.SandboxID, m.SandboxIDWO), m.Command, m.Cwd, m.User, m.Stdin, m.Env, m.Timeout)
	if !m.EnvWO.IsNull() {
		var wo map[string]string
		diags.Append(m.EnvWO.ElementsAs(ctx, &wo, false)...)
		in.Env = mergeMaps(in.Env, wo)
	}
	return in, diags
}
