package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

var (
	_ action.ActionWithConfigure        = &sandboxSnapshotAction{}
	_ action.ActionWithConfigValidators = &sandboxSnapshotAction{}
)

// snapshotActionTimeout bounds a snapshot: E2B checkpoints the sandbox and stores its memory and disk.
var snapshotActionTimeout = sandboxActionTimeout{def: 10 * time.Minute, min: 10 * time.Second, max: 2 * time.Hour}

// NewSandboxSnapshotAction returns the e2b_sandbox_snapshot action.
func NewSandboxSnapshotAction() action.Action {
	return &sandboxSnapshotAction{sandboxActionConfig{base.ActionConfig{TypeName: "_sandbox_snapshot"}}}
}

// sandboxSnapshotAction snapshots a sandbox as the newest build of a named snapshot template.
type sandboxSnapshotAction struct {
	sandboxActionConfig
}

type sandboxSnapshotActionModel struct {
	sandboxActionModel
	Name types.String `tfsdk:"name"`
}

// latestSnapshotNamePattern is E2B's rule for a snapshot name, with its team namespace allowed in front.
var latestSnapshotNamePattern = regexp.MustCompile(`^([a-z0-9][a-z0-9_-]*/)?[a-z0-9][a-z0-9_-]*$`)

// latestSnapshotNameValidators validate the name both snapshot-on-destroy paths take.
func latestSnapshotNameValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, 128),
		stringvalidator.RegexMatches(latestSnapshotNamePattern, "must be a snapshot name: lower-case letters, digits, "+
			"'-' and '_', starting with a letter or digit, such as \"dev-workspace\", without a :tag"),
	}
}

// descLatestSnapshotNaming is the naming rule both snapshot-on-destroy paths follow.
const descLatestSnapshotNaming = "Every snapshot of a name is a new build of one snapshot template, `<namespace>/<name>`, " +
	"under a tag of its own (`snap-<random>`), and the template's default tag moves to it: a sandbox created with " +
	"`template = \"<name>\"` starts from the newest snapshot, and `<namespace>/<name>:snap-<random>` from exactly " +
	"that one. Earlier snapshots of the name are kept (list them with the `e2b_snapshots` data source or the " +
	"`e2b_snapshot` list resource)."

func (a *sandboxSnapshotAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := sandboxActionAttributes("snapshot", snapshotActionTimeout)
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Name of the snapshot, such as `\"dev-workspace\"`. " + descLatestSnapshotNaming,
		Required:            true, Validators: latestSnapshotNameValidators(),
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Snapshots a sandbox (files and memory; the sandbox keeps running) under a name, " +
			"so its work outlives it. A paused sandbox is resumed for the snapshot and paused again (E2B snapshots only " +
			"running sandboxes); a sandbox that no longer exists fails the action, saying nothing was left to keep. " +
			"On a `before_destroy` trigger (Terraform 1.16+) it keeps the sandbox's last " +
			"state before Terraform kills it. In `terraform apply` (a replacement) `on_failure = halt`, the default, " +
			"makes a failed snapshot stop the run, and the sandbox stays; `terraform destroy` never stops for an " +
			"action (Terraform 1.16 reports the failure as a warning and destroys the sandbox), so where the snapshot " +
			"must come first there too, use `snapshot_on_destroy` on `e2b_sandbox`. The run's output names the " +
			"snapshot and its build. " +
			"Needs Terraform 1.14 or later; with OpenTofu or older Terraform use `snapshot_on_destroy` on `e2b_sandbox`, " +
			"which follows the same naming rule.",
		Attributes: attrs,
	}
}

func (a *sandboxSnapshotAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m sandboxSnapshotActionModel
	ctx, cancel, client := a.begin(ctx, req, resp, &m, &m.sandboxActionModel, snapshotActionTimeout)
	defer cancel()
	if client == nil {
		return
	}
	id, name := m.sandboxID(), m.Name.ValueString()
	sendProgress(resp, "Taking a snapshot of sandbox %s as %q…", id, name)
	snap, resumed, err := client.TakeLatestSnapshotInAnyState(ctx, id, name, true)
	if resumed {
		sendProgress(resp, "Sandbox %s was paused: resumed for the snapshot (E2B snapshots only running sandboxes), then paused again.", id)
	}
	if err != nil && snap != nil { // taken: the work is kept, and the error says what is left undone
		sendProgress(resp, "%s", latestSnapshotReport(id, snap))
		resp.Diagnostics.AddWarning("Snapshot taken, not everything done", err.Error())
		return
	}
	if err != nil {
		resp.Diagnostics.Append(m.callError(ctx, "Could not snapshot sandbox", snapshotActionTimeout, err))
		return
	}
	sendProgress(resp, "%s", latestSnapshotReport(id, snap))
}

// latestSnapshotReport tells which snapshot and build were made and how to start a sandbox from them.
func latestSnapshotReport(sandboxID string, s *e2b.LatestSnapshot) string {
	builds := ""
	if s.Builds > 0 {
		builds = fmt.Sprintf(", snapshot %d of the name", s.Builds)
	}
	return fmt.Sprintf("Snapshot %s of sandbox %s taken (build %s%s). Start a sandbox from the newest snapshot with "+
		"template = %q, or from this one with template = %q.", s.SnapshotID, sandboxID, s.BuildID, builds, s.Template, s.SnapshotID)
}
