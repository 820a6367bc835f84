package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// Bounds of a command's timeout, shared by the e2b_exec action and the e2b_sandbox_command resource.
const (
	defaultExecTimeout = 10 * time.Minute
	minExecTimeout     = time.Second
	maxExecTimeout     = 24 * time.Hour
)

// execModel is one command run as both the e2b_exec action and the e2b_sandbox_command resource
// take it; their models embed it.
type execModel struct {
	SandboxID   types.String           `tfsdk:"sandbox_id"`
	SandboxIDWO types.String           `tfsdk:"sandbox_id_wo"`
	Command     types.String           `tfsdk:"command"`
	Cwd         types.String           `tfsdk:"cwd"`
	Env         types.Map              `tfsdk:"env"`
	User        types.String           `tfsdk:"user"`
	Stdin       types.String           `tfsdk:"stdin"`
	Timeout     customtypes.GoDuration `tfsdk:"timeout"`
}

// descExec describe the inputs both command types take, so both document them alike.
var descExec = struct {
	sandboxID, sandboxIDWO, command, cwd, user, timeout, env, stdin string
}{
	sandboxID: "ID of the sandbox to run the command in. Exactly one of `sandbox_id` and `sandbox_id_wo` is required.",
	sandboxIDWO: "ID of the sandbox to run the command in, write-only: it accepts an ephemeral value such as " +
		"`ephemeral.e2b_sandbox.run.id` and is never stored. Needs Terraform 1.11+ or OpenTofu 1.11+.",
	command: "Shell command, run with `bash -l -c`.",
	cwd: "Working directory: absolute, `~/…`, or relative to the user's home. " +
		"Defaults to the template's working directory or the user's home.",
	user: "User to run the command as, e.g. `root`. Defaults to the template's user (`user`).",
	timeout: fmt.Sprintf("How long the command may run before it is killed (SIGKILL; reported as exit code %d), as a Go "+
		"duration such as `\"90s\"` or `\"10m\"`: %s to %s. Defaults to `\"%s\"`.", e2b.ExitCodeTimeout,
		convert.ShortDuration(minExecTimeout), convert.ShortDuration(maxExecTimeout), convert.ShortDuration(defaultExecTimeout)),
	env:   "Environment variables for the command, added to the sandbox's own.",
	stdin: "Text written to the command's standard input, which is then closed. Without it the command reads nothing (`/dev/null`).",
}

// execTimeoutValidators bound a command's timeout.
func execTimeoutValidators() []validator.String {
	return []validator.String{validators.DurationBetween(minExecTimeout, maxExecTimeout)}
}

func (m execModel) timeout() time.Duration {
	return customtypes.DurationOr(m.Timeout, defaultExecTimeout)
}

// sandboxID is the write-only sandbox ID when it is set, else the stored one.
func (m execModel) sandboxID() string {
	if !m.SandboxIDWO.IsNull() {
		return m.SandboxIDWO.ValueString()
	}
	return m.SandboxID.ValueString()
}

// exactlyOneSandboxID is the rule both command types check at validation.
var exactlyOneSandboxID = []path.Expression{path.MatchRoot("sandbox_id"), path.MatchRoot("sandbox_id_wo")}

// request builds the client's request; onOutput may be nil.
func (m execModel) request(ctx context.Context, maxOutput int, onOutput func(e2b.OutputBatch)) (e2b.ExecRequest, diag.Diagnostics) {
	r := e2b.ExecRequest{
		Command:        m.Command.ValueString(),
		Cwd:            m.Cwd.ValueString(),
		Timeout:        m.timeout(),
		MaxOutputBytes: maxOutput,
		OnOutput:       onOutput,
	}
	var diags diag.Diagnostics
	if !m.Env.IsNull() && !m.Env.IsUnknown() {
		diags.Append(m.Env.ElementsAs(ctx, &r.Env, false)...)
	}
	if !m.Stdin.IsNull() {
		r.Stdin = strings.NewReader(m.Stdin.ValueString())
	}
	return r, diags
}

// commandFailed reports a run that ended with a non-zero exit code or at its timeout.
func commandFailed(res *e2b.ExecResult) bool { return res.TimedOut || res.ExitCode != 0 }
