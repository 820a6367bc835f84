package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// The create call of both sandbox types (the e2b_sandbox resource and the
// ephemeral e2b_sandbox), with what each does with a sandbox whose create
// answer was lost.

// lostSandboxCreate says what happens to a sandbox that E2B made although its create timed out.
type lostSandboxCreate struct {
	timeout     time.Duration // the create timeout that ran out
	timeoutAttr string        // where to raise it
	fate        string        // what becomes of the sandbox, as a sentence
}

// createSandbox creates a sandbox; the client settles a lost answer by its own create token, also
// after ctx ended (E2B may have made the sandbox anyway). Such a sandbox is returned with
// lost = true and an error diagnostic that tells lc.fate; the caller keeps or kills it. Any other
// failure returns nil. A ctx canceled (Ctrl-C: the CLI stops the provider) is reported as an
// interruption, a ctx past its deadline as the create timeout running out.
func createSandbox(ctx context.Context, client *e2b.Client, req e2b.CreateSandboxRequest, lc lostSandboxCreate, diags *diag.Diagnostics) (sb *e2b.Sandbox, lost bool) {
	created, err := client.CreateSandbox(ctx, req)
	interruptedRun := errors.Is(ctx.Err(), context.Canceled)
	var interrupted *e2b.CreateInterruptedError
	switch {
	case created != nil && errors.As(err, &interrupted) && interruptedRun:
		diags.AddError("Sandbox creation interrupted", fmt.Sprintf(
			"The run was interrupted (Ctrl-C, or the CLI stopping the provider) before E2B answered the create, "+
				"but E2B made sandbox %s. %s", created.SandboxID, lc.fate))
		return created, true
	case created != nil && errors.As(err, &interrupted):
		diags.AddError("Sandbox creation timed out", fmt.Sprintf(
			"The create did not finish within the create timeout (%s), but E2B made sandbox %s. %s "+
				"Raise %s if creates are slow. Cause: %v", lc.timeout, created.SandboxID, lc.fate, lc.timeoutAttr, interrupted.Err))
		return created, true
	case err != nil && interruptedRun:
		base.AddClientError(diags, "Sandbox creation interrupted", fmt.Errorf("the run was interrupted (Ctrl-C, or the CLI "+
			"stopping the provider) before E2B answered the create: %w", err))
		return nil, false
	case err != nil:
		addSandboxCreateError(diags, req, err)
		return nil, false
	}
	tflog.Info(ctx, "created sandbox", map[string]any{"sandbox_id": created.SandboxID, "template": req.TemplateID})
	return created, false
}
