package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// snapshotOnDestroyResumeSeconds is how long a paused sandbox is resumed for, to be snapshotted
// before it is killed: E2B snapshots only running sandboxes.
const snapshotOnDestroyResumeSeconds = 300

// snapshotOnDestroyAttribute is e2b_sandbox's snapshot_on_destroy: the resource-side twin of the
// e2b_sandbox_snapshot action on a before_destroy trigger, for CLIs without actions.
func snapshotOnDestroyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Snapshot the sandbox under a name before it is killed: at `destroy`, at a replacement " +
			"(`-replace`, a change that replaces it) and when it leaves the configuration (the value last applied " +
			"counts). A paused sandbox is resumed for the snapshot. When the snapshot fails the sandbox is not killed " +
			"and stays in state, and the destroy fails saying why; remove `snapshot_on_destroy` (and apply) to destroy " +
			"it without one. Changing it changes nothing in E2B. Works with every CLI; on Terraform 1.16+ the " +
			"`e2b_sandbox_snapshot` action on a `before_destroy` trigger does the same with a choice of `on_failure`.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the snapshot, such as `\"dev-workspace\"`. " + latestSnapshotNamingDoc,
				Required:            true, Validators: latestSnapshotNameValidators(),
			},
		},
	}
}

// snapshotBeforeKill takes the snapshot_on_destroy snapshot of a sandbox about to be killed. It
// returns false, with diagnostics saying why, when the sandbox must not be killed.
func snapshotBeforeKill(ctx context.Context, client *e2b.Client, state sandboxResourceModel, diags *diag.Diagnostics) bool {
	if state.SnapshotOnDestroy.IsNull() || state.SnapshotOnDestroy.IsUnknown() {
		return true
	}
	name, ok := state.SnapshotOnDestroy.Attributes()["name"].(types.String)
	if !ok || name.IsNull() {
		return true
	}
	id := state.ID.ValueString()
	detail, err := client.GetSandbox(ctx, id)
	switch {
	case e2b.IsNotFound(err):
		diags.AddWarning("Sandbox gone before its snapshot", fmt.Sprintf("Sandbox %s no longer exists (it expired or "+
			"was killed), so no snapshot %q was taken of it.", id, name.ValueString()))
		return true
	case err != nil:
		diags.Append(snapshotOnDestroyFailed(id, name.ValueString(), err))
		return false
	case detail.State == e2b.SandboxStatePaused:
		if _, _, err := client.ConnectSandbox(ctx, id, snapshotOnDestroyResumeSeconds); err != nil {
			diags.Append(snapshotOnDestroyFailed(id, name.ValueString(), fmt.Errorf("resume the paused sandbox: %w", err)))
			return false
		}
	}
	snap, err := client.TakeLatestSnapshot(ctx, id, name.ValueString())
	if err != nil && snap == nil {
		diags.Append(snapshotOnDestroyFailed(id, name.ValueString(), err))
		return false
	}
	if err != nil { // Taken, but the name still starts the previous one: the work is kept, so the kill goes on.
		diags.AddAttributeWarning(path.Root("snapshot_on_destroy"), "Snapshot taken, name not moved", err.Error())
		return true
	}
	tflog.Info(ctx, latestSnapshotReport(id, snap))
	return true
}

func snapshotOnDestroyFailed(id, name string, err error) diag.Diagnostic {
	d := clientErrorDiagnostic("", err)
	return diag.NewAttributeErrorDiagnostic(path.Root("snapshot_on_destroy"), "Snapshot before destroy failed: sandbox kept",
		fmt.Sprintf("Sandbox %s was not killed because its snapshot %q could not be taken; it stays in state. Run the "+
			"destroy again, or remove snapshot_on_destroy (and apply) to destroy it without a snapshot.\n\n%s", id, name, d.Detail()))
}
