package base

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Steps the CRUD methods of the resources share.

// ModelAndClient reads the plan, the state or the configuration (get:
// req.Plan.Get, req.State.Get, req.Config.Get) into model and returns the
// provider's client; ok is false when diags hold an error of either.
func ModelAndClient(ctx context.Context, get func(context.Context, any) diag.Diagnostics, model any,
	data *ProviderData, diags *diag.Diagnostics) (client *e2b.Client, ok bool) {
	diags.Append(get(ctx, model)...)
	client, d := data.Client()
	diags.Append(d...)
	return client, !diags.HasError()
}

// WithTimeout bounds ctx by a duration of the resource's timeouts block (get: its Create,
// Update or Delete method, def when the block does not set it) and returns that duration too.
// When diags hold an error, ctx comes back unbounded with a cancel that does nothing.
func WithTimeout(ctx context.Context, get func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, time.Duration) {
	timeout, d := get(ctx, def)
	diags.Append(d...)
	if diags.HasError() {
		return ctx, func() {}, timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, timeout
}

// RemoveGone drops from state an object that E2B no longer has, with a
// warning that says so. The framework wants an identity even for a removed
// resource when none was stored (state written before identity existed, or
// by CLIs older than 1.12).
func RemoveGone(ctx context.Context, resp *resource.ReadResponse, summary, detail string, identity any) {
	resp.Diagnostics.AddWarning(summary, detail)
	resp.State.RemoveResource(ctx)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, identity)...)
}

// ImportedID is what an import names: the import ID, or in an import by
// identity (an import block's identity, CLIs 1.12+) the identity's attribute attr.
func ImportedID(ctx context.Context, req resource.ImportStateRequest, attr string, diags *diag.Diagnostics) string {
	if req.ID != "" {
		return req.ID
	}
	var id types.String
	diags.Append(req.Identity.GetAttribute(ctx, path.Root(attr), &id)...)
	return id.ValueString()
}
