package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Shared by the e2b_exec action and the e2b_sandbox_command resource.
const (
	defaultExecTimeout = 10 * time.Minute
	maxExecTimeout     = 24 * time.Hour
	// diagTailBytes bounds the output quoted in an error diagnostic.
	diagTailBytes = 4 << 10
	// maxCommandInDiag bounds how much of the command text a diagnostic repeats.
	maxCommandInDiag = 200
)

// execInputs are the settings both command types accept.
type execInputs struct {
	SandboxID string
	Command   string
	Cwd       string
	User      string
	Env       map[string]string
	Stdin     *string
	Timeout   time.Duration
}

// execInputsFrom converts the attributes both command types share.
func execInputsFrom(ctx context.Context, sandboxID, command, cwd, user, stdin types.String, env types.Map, timeout types.String) (execInputs, diag.Diagnostics) {
	in := execInputs{
		SandboxID: sandboxID.ValueString(),
		Command:   command.ValueString(),
		Cwd:       cwd.ValueString(),
		User:      user.ValueString(),
	}
	var diags diag.Diagnostics
	if !stdin.IsNull() {
		s := stdin.ValueString()
		in.Stdin = &s
	}
	if !env.IsNull() {
		diags.Append(env.ElementsAs(ctx, &in.Env, false)...)
	}
	t, err := parseExecTimeout(timeout.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("timeout"), "Invalid timeout", "timeout "+err.Error()+".")
	}
	in.Timeout = t
	return in, diags
}

// sandboxIDOf picks the write-only sandbox ID when it is set, else the stored one.
func sandboxIDOf(id, writeOnly types.String) types.String {
	if !writeOnly.IsNull() {
		return writeOnly
	}
	return id
}

// mergeMaps returns base overlaid with over; either may be nil.
func mergeMaps(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// parseExecTimeout reads a timeout such as "90s" or "10m"; empty means the default.
func parseExecTimeout(s string) (time.Duration, error) {
	if s == "" {
		return defaultExecTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: use a number with a unit, such as \"90s\", \"10m\" or \"1h30m\"", s)
	}
	if d < time.Second || d > maxExecTimeout {
		return 0, fmt.Errorf("%q is out of range: the timeout must be between 1s and 24h", s)
	}
	return d, nil
}

// validateExecConfig reports plan-time problems with known values.
func validateExecConfig(command, timeout types.String, diags *diag.Diagnostics) {
	if !command.IsNull() && !command.IsUnknown() && strings.TrimSpace(command.ValueString()) == "" {
		diags.AddAttributeError(path.Root("command"), "Empty command",
			"command must contain a shell command to run in the sandbox, for example \"make test\".")
	}
	if !timeout.IsNull() && !timeout.IsUnknown() {
		if _, err := parseExecTimeout(timeout.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("timeout"), "Invalid timeout", "timeout "+err.Error()+".")
		}
	}
}

// execRequest builds the client request; out may be nil.
func (in execInputs) execRequest(maxOutput int, out func(e2b.OutputBatch)) e2b.ExecRequest {
	r := e2b.ExecRequest{
		Command:        in.Command,
		Cwd:            in.Cwd,
		Env:            in.Env,
		Timeout:        in.Timeout,
		MaxOutputBytes: maxOutput,
		OnOutput:       out,
	}
	if in.Stdin != nil {
		r.Stdin = strings.NewReader(*in.Stdin)
	}
	return r
}

// runExec finds the sandbox's envd and runs the command. Errors come back as
// diagnostics worded for the user.
func runExec(ctx context.Context, data *ProviderData, in execInputs, req e2b.ExecRequest) (*e2b.ExecResult, diag.Diagnostics) {
	var diags diag.Diagnostics
	client, d := data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return nil, diags
	}
	envd, err := client.SandboxEnvd(ctx, in.SandboxID, in.User)
	if err != nil {
		diags.Append(sandboxLookupDiagnostic("Could not run command", in.SandboxID, err))
		return nil, diags
	}
	res, err := envd.Exec(ctx, req)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		diags.AddError("Command cancelled",
			fmt.Sprintf("The run was cancelled, so the command %s was killed in sandbox %q (SIGKILL).",
				quoteCommand(in.Command), in.SandboxID))
	default:
		diags.Append(envdDiagnostic("Could not run command", in.SandboxID, err))
	}
	return res, diags
}

// sandboxLookupDiagnostic words a failure to find the sandbox's envd.
func sandboxLookupDiagnostic(summary, sandboxID string, err error) diag.Diagnostic {
	switch {
	case e2b.IsNotFound(err):
		return diag.NewErrorDiagnostic(summary, fmt.Sprintf(
			"Sandbox %q does not exist: it was killed or reached the end of its timeout.\n\n%s", sandboxID, err))
	case errors.Is(err, e2b.ErrSandboxPaused):
		return diag.NewErrorDiagnostic(summary, fmt.Sprintf(
			"Sandbox %q is paused, so its files and processes cannot be reached. Resume it first (`paused = false` on its e2b_sandbox).", sandboxID))
	default:
		return clientErrorDiagnostic(summary, err)
	}
}

// envdDiagnostic words a failed call to the daemon inside the sandbox.
func envdDiagnostic(summary, sandboxID string, err error) diag.Diagnostic {
	if e2b.IsSandboxNotRunning(err) {
		return diag.NewErrorDiagnostic(summary, fmt.Sprintf(
			"Sandbox %q stopped answering: it was paused, killed or reached the end of its timeout.\n\n%s", sandboxID, err))
	}
	if e2b.IsUnauthorized(err) {
		// envd's 401 is about the sandbox (unknown user, wrong access token), never the API key.
		return diag.NewErrorDiagnostic(summary, fmt.Sprintf(
			"The daemon in sandbox %q refused the request: check `user` (the user must exist in the sandbox's "+
				"template).\n\n%s", sandboxID, err))
	}
	return clientErrorDiagnostic(summary, err)
}

// failedCommandDiagnostic describes a non-zero exit or a timeout.
func failedCommandDiagnostic(in execInputs, res *e2b.ExecResult) diag.Diagnostic {
	var b strings.Builder
	if res.TimedOut {
		fmt.Fprintf(&b, "The command %s in sandbox %q did not finish within its timeout of %s and was killed (SIGKILL); "+
			"it is reported with exit code %d.", quoteCommand(in.Command), in.SandboxID, in.Timeout, res.ExitCode)
	} else {
		fmt.Fprintf(&b, "The command %s in sandbox %q exited with code %d", quoteCommand(in.Command), in.SandboxID, res.ExitCode)
		if res.Status != "" && !strings.HasPrefix(res.Status, "exit status") {
			fmt.Fprintf(&b, " (%s)", res.Status)
		}
		b.WriteString(".")
	}
	writeTail(&b, "stderr", res.Stderr, res.StderrTruncated)
	if strings.TrimSpace(res.Stderr) == "" {
		writeTail(&b, "stdout", res.Stdout, res.StdoutTruncated)
	}
	summary := fmt.Sprintf("Command failed with exit code %d", res.ExitCode)
	if res.TimedOut {
		summary = "Command timed out after " + in.Timeout.String()
	}
	return diag.NewErrorDiagnostic(summary, b.String())
}

func writeTail(b *strings.Builder, name, text string, truncated bool) {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	if len(text) > diagTailBytes {
		text = text[len(text)-diagTailBytes:]
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
		truncated = true
	}
	label := "\n\n" + name + ":\n"
	if truncated {
		label = "\n\nLast lines of " + name + ":\n"
	}
	b.WriteString(label + strings.ToValidUTF8(text, "\uFFFD"))
}

func quoteCommand(c string) string {
	c = strings.TrimSpace(c)
	if len(c) > maxCommandInDiag {
		c = c[:maxCommandInDiag] + "…"
	}
	return fmt.Sprintf("%q", c)
}

// formatOutputBatch renders a batch for a progress message: every line is
// prefixed with its stream, so stdout and stderr stay apart when interleaved.
func formatOutputBatch(b e2b.OutputBatch) string {
	lines := strings.Split(strings.TrimRight(b.Text, "\n"), "\n")
	prefix := b.Stream.String() + ": "
	for i, l := range lines {
		lines[i] = prefix + strings.TrimRight(l, "\r")
	}
	return strings.Join(lines, "\n")
}
