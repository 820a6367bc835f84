package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Steps the CRUD methods of the resources share.

// modelAndClient reads the plan or the state (get: req.Plan.Get,
// req.State.Get) into model and returns the provider's client; ok is false
// when diags hold an error of either.
func modelAndClient(ctx context.Context, get func(context.Context, any) diag.Diagnostics, model any,
	data *ProviderData, diags *diag.Diagnostics) (client *e2b.Client, ok bool) {
	diags.Append(get(ctx, model)...)
	client, d := data.Client()
	diags.Append(d...)
	return client, !diags.HasError()
}

// removeGone drops from state an object that E2B no longer has, with a
// warning that says so. The framework wants an identity even for a removed
// resource when none was stored (state written before identity existed, or
// by CLIs older than 1.12).
func removeGone(ctx context.Context, resp *resource.ReadResponse, summary, detail string, identity any) {
	resp.Diagnostics.AddWarning(summary, detail)
	resp.State.RemoveResource(ctx)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, identity)...)
}
