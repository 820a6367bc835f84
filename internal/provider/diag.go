package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Messages shared by every type, so users see the same words for the same problem.
const (
	missingKeySummary = "Missing E2B API key"
	missingKeyDetail  = "No E2B API key is configured. Set `api_key` in the provider \"e2b\" block " +
		"or the E2B_API_KEY environment variable (keys look like e2b_...; create one at https://e2b.dev/dashboard)."
	sandboxGoneHint = "The sandbox no longer exists: its timeout ran out or it was killed. " +
		"Run plan again: the sandbox leaves state and Terraform plans a replacement."
	sandboxNotRunningHint = "The sandbox stopped answering: it was paused, killed or reached the end of its timeout. " +
		"Run plan again to see its state; a paused sandbox resumes when `paused = false`."
	invalidKeySummary = "Invalid E2B API key"
	invalidKeyDetail  = "E2B rejected the API key (401 Unauthorized): the key is invalid or was revoked. " +
		"Check `api_key` in the provider \"e2b\" block or the E2B_API_KEY environment variable."
)

// clientErrorDiagnostic maps an error from the E2B client to one diagnostic. summary says what
// was being done ("Could not create sandbox").
func clientErrorDiagnostic(summary string, err error) diag.Diagnostic {
	switch {
	case errors.Is(err, e2b.ErrMissingAPIKey):
		return diag.NewErrorDiagnostic(missingKeySummary, missingKeyDetail)
	case e2b.IsUnauthorized(err):
		return diag.NewErrorDiagnostic(invalidKeySummary, invalidKeyDetail+"\n\nE2B said: "+err.Error())
	case e2b.IsRateLimited(err):
		return diag.NewErrorDiagnostic(summary,
			"E2B kept answering 429 Too Many Requests after all retries. Wait, lower parallelism "+
				"(terraform -parallelism), or raise max_retries in the provider block.\n\n"+err.Error())
	case e2b.IsSandboxGone(err):
		return diag.NewErrorDiagnostic(summary, sandboxGoneHint+"\n\n"+err.Error())
	case e2b.IsSandboxNotRunning(err):
		return diag.NewErrorDiagnostic(summary, sandboxNotRunningHint+"\n\n"+err.Error())
	default:
		return diag.NewErrorDiagnostic(summary, err.Error())
	}
}

// addClientError appends the diagnostic for a client error.
func addClientError(diags *diag.Diagnostics, summary string, err error) {
	diags.Append(clientErrorDiagnostic(summary, err))
}

// addClientAttributeError is addClientError tied to an attribute, for errors about one input.
func addClientAttributeError(diags *diag.Diagnostics, p path.Path, summary string, err error) {
	d := clientErrorDiagnostic(summary, err)
	if errors.Is(err, e2b.ErrMissingAPIKey) || e2b.IsUnauthorized(err) {
		diags.Append(d)
		return
	}
	diags.AddAttributeError(p, d.Summary(), d.Detail())
}
