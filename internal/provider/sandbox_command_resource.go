package provider

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/int32validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int32default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
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

var (
	_ resource.ResourceWithConfigure        = &sandboxCommandResource{}
	_ resource.ResourceWithConfigValidators = &sandboxCommandResource{}
)

const (
	defaultCommandOutputBytes = 64 << 10
	maxCommandOutputBytes     = 16 << 20
)

// NewSandboxCommandResource returns the e2b_sandbox_command resource.
func NewSandboxCommandResource() resource.Resource {
	return &sandboxCommandResource{base.ResourceConfig{TypeName: "_sandbox_command"}}
}

// sandboxCommandResource runs a command when created, and again whenever an
// input or a trigger changes (by replacement). Its state records the run.
type sandboxCommandResource struct {
	base.ResourceConfig
}

// sandboxCommandModel is the command run with what the resource adds: triggers, output
// settings and the record of the run.
type sandboxCommandModel struct {
	execModel
	EnvWO            types.Map    `tfsdk:"env_wo"`
	ID               types.String `tfsdk:"id"`
	Triggers         types.Map    `tfsdk:"triggers"`
	MaxOutputBytes   types.Int32  `tfsdk:"max_output_bytes"`
	AllowNonZeroExit types.Bool   `tfsdk:"allow_non_zero_exit"`

	ExitCode   types.Int64  `tfsdk:"exit_code"`
	Stdout     types.String `tfsdk:"stdout"`
	Stderr     types.String `tfsdk:"stderr"`
	Truncated  types.Bool   `tfsdk:"truncated"`
	TotalLines types.Int64  `tfsdk:"total_lines"`
	TimedOut   types.Bool   `tfsdk:"timed_out"`
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
			"sandbox_id": schema.StringAttribute{MarkdownDescription: descExec.sandboxID, Optional: true,
				PlanModifiers: replaceStr, Validators: validators.SandboxID()},
			"sandbox_id_wo": schema.StringAttribute{MarkdownDescription: descExec.sandboxIDWO + " Since Terraform cannot tell " +
				"when a write-only value changes, the command runs again only when `triggers` or another input changes; " +
				"`triggers = { run = plantimestamp() }` runs it on every apply.",
				Optional: true, WriteOnly: true, Validators: validators.SandboxID()},
			"command": schema.StringAttribute{MarkdownDescription: descExec.command, Required: true,
				PlanModifiers: replaceStr, Validators: validators.Command()},
			"cwd": schema.StringAttribute{MarkdownDescription: descExec.cwd, Optional: true,
				PlanModifiers: replaceStr, Validators: []validator.String{validators.NoControlChars()}},
			"user": schema.StringAttribute{MarkdownDescription: descExec.user, Optional: true,
				PlanModifiers: replaceStr, Validators: []validator.String{validators.NoControlChars()}},
			"timeout": schema.StringAttribute{MarkdownDescription: descExec.timeout, Optional: true,
				CustomType: customtypes.GoDurationType{}, PlanModifiers: replaceStr, Validators: execTimeoutValidators()},
			"env": schema.MapAttribute{MarkdownDescription: descExec.env + " Sensitive.", Optional: true, Sensitive: true,
				ElementType: types.StringType, PlanModifiers: replaceMap, Validators: validators.EnvVars()},
			"env_wo": schema.MapAttribute{MarkdownDescription: descExec.env + " Write-only: they accept ephemeral values " +
				"(for example tokens from `e2b_sandbox_access`) and are never stored. Merged over `env`. Changing them alone " +
				"does not re-run the command. Needs Terraform 1.11+ or OpenTofu 1.11+.",
				Optional: true, WriteOnly: true, ElementType: types.StringType, Validators: validators.EnvVars()},
			"stdin": schema.StringAttribute{MarkdownDescription: descExec.stdin + " Sensitive.", Optional: true, Sensitive: true,
				PlanModifiers: replaceStr},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Arbitrary values; changing any of them runs the command again. For example " +
					"`{ config = e2b_sandbox_file.config.sha256 }` re-runs it when a file changes.",
				Optional:      true,
				ElementType:   types.StringType,
				PlanModifiers: replaceMap,
			},
			"max_output_bytes": schema.Int32Attribute{
				MarkdownDescription: fmt.Sprintf("How many bytes of the end of stdout and of stderr to keep (each), 1 to %d. "+
					"Default `%d`. The command's output is never held in memory beyond that: the provider keeps one buffer of "+
					"this size per stream, and its memory grows by about three times what it keeps (the kept output is "+
					"copied on its way into state; 52 MiB for 16 MiB kept of 100 MiB printed). Changing it does not "+
					"re-run the command.",
					maxCommandOutputBytes, defaultCommandOutputBytes),
				Optional:   true,
				Computed:   true,
				Default:    int32default.StaticInt32(defaultCommandOutputBytes),
				Validators: []validator.Int32{int32validator.Between(1, maxCommandOutputBytes)},
			},
			"allow_non_zero_exit": schema.BoolAttribute{
				MarkdownDescription: "Record a non-zero exit code (or a timeout) instead of failing the apply. " +
					"Default `false`. Changing it does not re-run the command. A recorded failure is a finished run: the " +
					"command runs again only when `triggers` or another input changes, so in CI key `triggers` on a value " +
					"that changes with every pipeline run and retry (the pull-request guide shows it).",
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
				MarkdownDescription: "The last `max_output_bytes` of standard output, as the command wrote it: " + descRawOutput,
				Computed:            true,
				PlanModifiers:       keepStr,
			},
			"stderr": schema.StringAttribute{
				MarkdownDescription: "The last `max_output_bytes` of standard error, as the command wrote it: " + descRawOutput,
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

func (r *sandboxCommandResource) ConfigValidators(_ context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(exactlyOneSandboxID...)}
}

func (r *sandboxCommandResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan, cfg sandboxCommandModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...) // Write-only values are only in the configuration.
	if resp.Diagnostics.HasError() {
		return
	}
	run := plan.execModel
	run.SandboxIDWO = cfg.SandboxIDWO
	run.Env = mergedEnv(ctx, plan.Env, cfg.EnvWO, &resp.Diagnostics)
	logOutput := func(b e2b.OutputBatch) { logCommandOutput(ctx, b) }
	res, diags := runExec(ctx, r.Data, run, int(plan.MaxOutputBytes.ValueInt32()), logOutput)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if commandFailed(res) && !plan.AllowNonZeroExit.ValueBool() {
		// Nothing goes into state: the next apply runs the command again.
		resp.Diagnostics.Append(failedCommandDiagnostic(run, res))
		return
	}
	plan.ID = types.StringValue(randomHex(8))
	plan.ExitCode = types.Int64Value(int64(res.ExitCode))
	plan.Stdout = types.StringValue(res.Stdout)
	plan.Stderr = types.StringValue(res.Stderr)
	plan.Truncated = types.BoolValue(res.Truncated())
	plan.TotalLines = types.Int64Value(int64(res.TotalLines))
	plan.TimedOut = types.BoolValue(res.TimedOut)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// mergedEnv is env overlaid with the write-only env_wo.
func mergedEnv(ctx context.Context, env, writeOnly types.Map, diags *diag.Diagnostics) types.Map {
	if writeOnly.IsNull() || writeOnly.IsUnknown() {
		return env
	}
	merged, d := convert.StringMapFrom(ctx, env)
	diags.Append(d...)
	over, d := convert.StringMapFrom(ctx, writeOnly)
	diags.Append(d...)
	maps.Copy(merged, over)
	return convert.StringMapValue(merged)
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

// descRawOutput says how to print output the sandbox wrote, which state keeps raw.
const descRawOutput = "terminal control sequences included (the error and progress messages show them escaped, as " +
	"`\\x1b`). Code in the sandbox chooses them: print the value with `terraform output -raw NAME | cat -v` (or " +
	"`jq` on `-json`) rather than raw to a terminal."
