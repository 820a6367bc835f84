package base

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Messages shared by every type, so users see the same words for the same problem.
const (
	MissingKeySummary = "Missing E2B API key"
	MissingKeyDetail  = "No E2B API key is configured. Set `api_key` in the provider \"e2b\" block " +
		"or the E2B_API_KEY environment variable (keys look like e2b_...; create one at https://e2b.dev/dashboard)."
	sandboxGoneHint = "The sandbox no longer exists: its timeout ran out or it was killed. " +
		"Run plan again: the sandbox leaves state and Terraform plans a replacement."
	sandboxNotRunningHint = "The sandbox stopped answering: it was paused, killed or reached the end of its timeout. " +
		"Run plan again to see its state; a paused sandbox resumes when `paused = false`."
	invalidKeySummary = "Invalid E2B API key"
	invalidKeyDetail  = "E2B rejected the API key (401 Unauthorized): the key is invalid or was revoked. " +
		"Check `api_key` in the provider \"e2b\" block or the E2B_API_KEY environment variable."
)

// ClientErrorDiagnostic maps an error from the E2B client to one diagnostic. summary says what
// was being done ("Could not create sandbox"). An error may carry text a sandbox chose (file
// names, a lying envd's answers, a command's output), so the detail is made safe for a terminal.
func ClientErrorDiagnostic(summary string, err error) diag.Diagnostic {
	d := clientErrorDiagnosticRaw(summary, err)
	return diag.NewErrorDiagnostic(d.Summary(), e2b.SafeText(d.Detail()))
}

func clientErrorDiagnosticRaw(summary string, err error) diag.Diagnostic {
	switch {
	case errors.Is(err, e2b.ErrMissingAPIKey):
		return diag.NewErrorDiagnostic(MissingKeySummary, MissingKeyDetail)
	case e2b.IsUnauthorized(err):
		return diag.NewErrorDiagnostic(invalidKeySummary, invalidKeyDetail+"\n\nE2B said: "+err.Error())
	case isTimeoutAboveLimit(err):
		d, _ := e2b.TimeoutAboveLimit(err)
		limit := fmt.Sprintf("%d hours", int(d.Hours()))
		if d == time.Hour {
			limit = "1 hour"
		}
		return diag.NewErrorDiagnostic(summary, fmt.Sprintf("The sandbox's timeout is above what the team's E2B plan "+
			"allows for one run of a sandbox: at most %s (%s). Lower `timeout` to %s or less; to keep a sandbox "+
			"longer, set `auto_pause = true`: it pauses at its timeout and resumes "+
			"later with its files and memory.\n\nE2B said: %s", limit, e2b.PlanTimeoutLimits, limit, err.Error()))
	case e2b.IsSandboxLimit(err):
		return diag.NewErrorDiagnostic(summary, sandboxLimitDetail(err))
	case e2b.IsAPIRateLimited(err):
		return diag.NewErrorDiagnostic(summary,
			"E2B kept refusing this request for its API rate limit (429 Too Many Requests). Requests wait their "+
				"turn within the rate E2B shows and are retried until the operation's timeout ends. Raise that "+
				"timeout, lower parallelism (terraform -parallelism) or run fewer Terraform runs against the team at "+
				"once.\n\n"+err.Error())
	case e2b.IsRateLimited(err):
		return diag.NewErrorDiagnostic(summary,
			"E2B kept answering 429 Too Many Requests. Sandbox creates are paced to E2B's create rate and "+
				"retried until their create timeout; other requests are retried max_retries times. State your "+
				"plan's rate with create_rate_limit, raise the create timeout or max_retries, or lower parallelism "+
				"(terraform -parallelism).\n\n"+err.Error())
	case e2b.IsUnavailable(err):
		return diag.NewErrorDiagnostic(summary,
			"E2B could not take the request now (503 Service Unavailable) and kept answering so through the retries: "+
				"the sandbox's node is busy, E2B is restarting, or no template builder is free. Nothing changed; run "+
				"apply again later, or raise max_retries.\n\n"+err.Error())
	case e2b.IsSandboxGone(err):
		return diag.NewErrorDiagnostic(summary, sandboxGoneHint+"\n\n"+err.Error())
	case e2b.IsSandboxNotRunning(err):
		return diag.NewErrorDiagnostic(summary, sandboxNotRunningHint+"\n\n"+err.Error())
	default:
		return diag.NewErrorDiagnostic(summary, err.Error())
	}
}

// AddClientError appends the diagnostic for a client error.
func AddClientError(diags *diag.Diagnostics, summary string, err error) {
	diags.Append(ClientErrorDiagnostic(summary, err))
}

// AddClientAttributeError is addClientError tied to an attribute, for errors about one input.
func AddClientAttributeError(diags *diag.Diagnostics, p path.Path, summary string, err error) {
	d := ClientErrorDiagnostic(summary, err)
	if errors.Is(err, e2b.ErrMissingAPIKey) || e2b.IsUnauthorized(err) {
		diags.Append(d)
		return
	}
	diags.AddAttributeError(p, d.Summary(), d.Detail())
}

// AddSandboxReadError is addClientError for a read of sandbox id, named by
// the attribute at p: a sandbox E2B does not know is an error of that attribute.
func AddSandboxReadError(diags *diag.Diagnostics, p path.Path, id, summary string, err error) {
	if e2b.IsNotFound(err) {
		diags.AddAttributeError(p, "Sandbox not found",
			"Sandbox "+id+" does not exist: it expired, was killed, or belongs to another team.")
		return
	}
	AddClientError(diags, summary, err)
}

// sandboxLimitDetail explains a start refused at the team's limit of concurrent sandboxes with
// what the provider knows: the limit, the team's running sandboxes, and what this run started.
// Terraform does not tell a provider how many sandboxes the whole configuration adds.
func sandboxLimitDetail(err error) string {
	var le *e2b.SandboxLimitError
	if !errors.As(err, &le) {
		return "E2B refused to start the sandbox: the team runs as many sandboxes as its plan allows " +
			"(running sandboxes count, paused ones do not). Kill or pause sandboxes, or raise the limit: " +
			"https://e2b.dev/docs/billing\n\n" + err.Error()
	}
	var b strings.Builder
	b.WriteString("E2B refused to start the sandbox: ")
	if le.Limit > 0 {
		fmt.Fprintf(&b, "the team's plan allows %d concurrent sandboxes", le.Limit)
	} else {
		b.WriteString("the team's plan allows no more concurrent sandboxes")
	}
	if le.Running >= 0 {
		fmt.Fprintf(&b, " and the team runs %d", le.Running)
	}
	b.WriteString(" (running sandboxes count, paused ones do not). ")
	refused := plural(le.Waiting, "start", "starts") + " of this run (this one included) were"
	if le.Waiting == 1 {
		refused = "1 start of this run (this one) was"
	}
	fmt.Fprintf(&b, "This run has started %s, and %s refused at the limit; Terraform does not tell the provider "+
		"how many more sandboxes the configuration adds. ", plural(le.Started, "sandbox", "sandboxes"), refused)
	fmt.Fprintf(&b, "The provider waited %s for sandboxes this run deletes or pauses", le.Waited.Round(time.Second))
	if !le.Stops {
		b.WriteString(" (none was being deleted or paused)")
	}
	b.WriteString(". Kill or pause sandboxes outside this configuration, create fewer, or raise the limit " +
		"(https://e2b.dev/docs/billing); when the same apply also deletes sandboxes, a longer sandbox_limit_wait " +
		"lets their places be taken.\n\nE2B said: " + le.Err.Message)
	return b.String()
}

// plural writes n with the word's singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func isTimeoutAboveLimit(err error) bool {
	_, ok := e2b.TimeoutAboveLimit(err)
	return ok
}
