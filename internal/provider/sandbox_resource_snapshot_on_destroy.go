package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// snapshotOnDestroyAttribute is e2b_sandbox's snapshot_on_destroy: the resource-side twin of the
// e2b_sandbox_snapshot action on a before_destroy trigger, for CLIs without actions.
func snapshotOnDestroyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Snapshot the sandbox under a name before it is killed: at `destroy`, at a replacement " +
			"(`-replace`, a change that replaces it) and when it leaves the configuration (the value last applied " +
			"counts). A paused sandbox is resumed for the snapshot (E2B snapshots only running sandboxes). The run ends " +
			"with a warning naming the snapshot taken, on every CLI; a sandbox that expired before its destroy has nothing left " +
			"to snapshot, and a warning says so. When the snapshot fails the sandbox is not killed " +
			"and stays in state, and the destroy fails saying why; remove `snapshot_on_destroy` (and apply) to destroy " +
			"it without one. Changing it changes nothing in E2B. Works with every CLI; on Terraform 1.16+ the " +
			"`e2b_sandbox_snapshot` action on a `before_destroy` trigger does the same with a choice of `on_failure`.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the snapshot, such as `\"dev-workspace\"`. " + descLatestSnapshotNaming,
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
	snap, _, err := client.TakeLatestSnapshotInAnyState(ctx, id, name.ValueString(), false)
	switch {
	case errors.Is(err, e2b.ErrSandboxGoneBeforeSnapshot):
		diags.AddAttributeWarning(path.Root("snapshot_on_destroy"), "Sandbox gone before its snapshot",
			fmt.Sprintf("Sandbox %s no longer exists (its timeout ran out or it was killed), so no snapshot %q "+
				"was taken of it: nothing of it was left to keep. Raise timeout, or pause it, to keep a sandbox "+
				"until its destroy.", id, name.ValueString()))
		return true
	case err != nil && snap == nil:
		diags.Append(snapshotOnDestroyFailed(id, name.ValueString(), err))
		return false
	case err != nil: // Taken, but the name still starts the previous one: the work is kept, so the kill goes on.
		diags.AddAttributeWarning(path.Root("snapshot_on_destroy"), "Snapshot taken, name not moved", err.Error())
		return true
	}
	// A warning, because it is the one message every CLI shows at destroy (OpenTofu has no
	// action progress and hides informational logs): the run must name what it kept.
	diags.AddAttributeWarning(path.Root("snapshot_on_destroy"), "Snapshot taken before destroy", latestSnapshotReport(id, snap))
	return true
}

func snapshotOnDestroyFailed(id, name string, err error) diag.Diagnostic {
	d := base.ClientErrorDiagnostic("", err)
	return diag.NewAttributeErrorDiagnostic(path.Root("snapshot_on_destroy"), "Snapshot before destroy failed: sandbox kept",
		fmt.Sprintf("Sandbox %s was not killed because its snapshot %q could not be taken; it stays in state. Run the "+
			"destroy again, or remove snapshot_on_destroy (and apply) to destroy it without a snapshot.\n\n%s", id, name, d.Detail()))
}

// goneWorkNote tells, for a sandbox found gone, that snapshot_on_destroy could not keep its work.
func goneWorkNote(state sandboxResourceModel) string {
	if state.SnapshotOnDestroy.IsNull() || state.SnapshotOnDestroy.IsUnknown() {
		return ""
	}
	name, _ := state.SnapshotOnDestroy.Attributes()["name"].(types.String)
	return fmt.Sprintf(" Its work was not kept: snapshot_on_destroy takes snapshot %s only of a sandbox that "+
		"still exists at its destroy.", name)
}
