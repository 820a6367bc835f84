package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// Bounds of what a diagnostic about a command quotes.
const (
	// diagTailBytes bounds the output quoted in an error diagnostic.
	diagTailBytes = 4 << 10
	// maxCommandInDiag bounds how much of the command text a diagnostic repeats.
	maxCommandInDiag = 200
)

// runExec finds the sandbox's envd and runs the command. Errors come back as diagnostics worded
// for the user; a non-zero exit or a timeout is a result (see commandFailed).
func runExec(ctx context.Context, data *base.ProviderData, m execModel, maxOutput int, onOutput func(e2b.OutputBatch)) (*e2b.ExecResult, diag.Diagnostics) {
	req, diags := m.request(ctx, maxOutput, onOutput)
	client, d := data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return nil, diags
	}
	sandboxID := m.sandboxID()
	envd, err := client.SandboxEnvd(ctx, sandboxID, m.User.ValueString())
	if err != nil {
		diags.Append(sandboxLookupDiagnostic("Could not run command", sandboxID, err))
		return nil, diags
	}
	res, err := envd.Exec(ctx, req)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		diags.AddError("Command cancelled",
			fmt.Sprintf("The run was cancelled, so the command %s was killed in sandbox %q (SIGKILL).",
				quoteCommand(req.Command), sandboxID))
	default:
		diags.Append(envdDiagnostic("Could not run command", sandboxID, err))
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
		return base.ClientErrorDiagnostic(summary, err)
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
	return base.ClientErrorDiagnostic(summary, err)
}

// failedCommandDiagnostic describes a non-zero exit or a timeout.
func failedCommandDiagnostic(m execModel, res *e2b.ExecResult) diag.Diagnostic {
	var b strings.Builder
	command, sandboxID, timeout := quoteCommand(m.Command.ValueString()), m.sandboxID(), convert.ShortDuration(m.timeout())
	if res.TimedOut {
		fmt.Fprintf(&b, "The command %s in sandbox %q did not finish within its timeout of %s and was killed (SIGKILL); "+
			"it is reported with exit code %d.", command, sandboxID, timeout, res.ExitCode)
	} else {
		fmt.Fprintf(&b, "The command %s in sandbox %q exited with code %d", command, sandboxID, res.ExitCode)
		if res.Status != "" && !strings.HasPrefix(res.Status, "exit status") {
			fmt.Fprintf(&b, " (%s)", e2b.SafeLine(res.Status))
		}
		b.WriteString(".")
	}
	writeTail(&b, "stderr", res.Stderr, res.StderrTruncated)
	if strings.TrimSpace(res.Stderr) == "" {
		writeTail(&b, "stdout", res.Stdout, res.StdoutTruncated)
	}
	summary := fmt.Sprintf("Command failed with exit code %d", res.ExitCode)
	if res.TimedOut {
		summary = "Command timed out after " + timeout
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
	// The output is the sandbox's: escaped, so it cannot drive the operator's terminal.
	b.WriteString(label + e2b.SafeText(text))
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
		lines[i] = prefix + e2b.SafeText(strings.TrimRight(l, "\r"))
	}
	return strings.Join(lines, "\n")
}
