package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// What an apply of e2b_template builds, and how it ends.

// buildMode is what a build call makes.
type buildMode int

const (
	buildNewTemplate buildMode = iota // create: a template no one has
	buildNewBuild                     // update: a new build of the template
	buildCarryOn                      // update: the build in state, which an earlier run stopped following
)

// buildOutcome is how a build call ended.
type buildOutcome int

const (
	buildDone       buildOutcome = iota // the build is ready
	buildFailed                         // an error: E2B failed the build, or it could not be run
	buildUnfinished                     // the provider stopped following (timeout, interrupt): a warning
)

// A create that ends with an error is tainted by Terraform, and the next
// apply deletes the template with every build. A build the provider stopped
// following may still finish at E2B, so it is no error: state records the
// template with the build as "building", and the next plan settles it from
// the status the refresh reads (buildSettling).

// updateBuildMode says which build an update runs, if any: a new one when a
// build input changed or the build in state failed (the plan left build_id
// unknown), the build in state when it is unfinished (build_status unknown).
func updateBuildMode(plan *templateResourceModel) (buildMode, bool) {
	switch {
	case plan.BuildID.IsUnknown():
		return buildNewBuild, true
	case plan.BuildStatus.IsUnknown():
		return buildCarryOn, true
	}
	return 0, false
}

// buildFailedAtE2B reports a build in state that E2B failed (after the
// provider stopped following it): the next apply starts a new build.
func (m *templateResourceModel) buildFailedAtE2B() bool {
	return m.BuildStatus.ValueString() == e2b.BuildStatusError
}

// buildSettling reports a build in state that has not finished (the provider
// stopped following it): the next apply carries it on and waits for it.
func (m *templateResourceModel) buildSettling() bool {
	s := m.BuildStatus.ValueString()
	return s == e2b.BuildStatusBuilding || s == e2b.BuildStatusWaiting
}

// unfinishedBuildMessage says why the provider stopped following the build
// and exactly what the next apply does with it.
func unfinishedBuildMessage(ctx context.Context, mode buildMode, res *e2b.BuildResult) string {
	timeout := "timeouts.create"
	if mode != buildNewTemplate {
		timeout = "timeouts.update"
	}
	why := "the run was interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "it did not finish within " + timeout + "; raise it to wait longer"
	}
	return fmt.Sprintf("Stopped following build %s of template %s: %s. The build goes on at E2B, and nothing is deleted: "+
		"state records the template with this build as %q. The next plan reads the build's status from E2B: "+
		"if the build is ready, the next apply builds nothing; if it failed, the next apply starts a new build of the "+
		"same template, in place; if it is still running (or was never started), the next apply carries it on and "+
		"waits for it (timeouts.update).", res.BuildID, res.TemplateID, why, e2b.BuildStatusBuilding)
}

// failedBuildNext says what the next apply does after a failed build.
func failedBuildNext(mode buildMode) string {
	if mode == buildNewTemplate {
		return "\n\nThe template is in state, tainted: the next apply replaces it (it has no finished build)."
	}
	return "\n\nThe next apply starts a new build of the same template; the last good build stays usable meanwhile."
}

// addCreateError maps what BuildTemplate refuses before any build runs:
// a template another request made, and a create whose answer was lost.
func addCreateError(diags *diag.Diagnostics, name string, err error) {
	var taken *e2b.TemplateTakenError
	var unsettled *e2b.TemplateCreateUnsettledError
	switch {
	case errors.As(err, &taken):
		diags.AddAttributeError(path.Root("name"), "Template made by another resource", fmt.Sprintf(
			"Template %s (ID %s) was created by another request after this apply found the name free: two resources, "+
				"modules or runs name the same template. E2B built into that template instead of making a new one; this resource "+
				"does not own it, is not in state, and started no build in it (its requested build %s stays unstarted). "+
				"Give each resource its own name, or manage the template in one place only.",
			name, taken.TemplateID, taken.BuildID))
	case errors.As(err, &unsettled) && unsettled.TemplateID != "":
		diags.AddAttributeError(path.Root("name"), "Template create got no answer", fmt.Sprintf(
			"%v.\n\nThe template is not taken over: it did not exist when this apply read the name, but E2B's answer to the "+
				"create was lost, and E2B's API keeps nothing that tells whether this apply's request made it or another request "+
				"made it at the same moment. If it is this configuration's, import it (terraform import <address> %s, or an "+
				"import block) and apply again; otherwise choose another name.", err, name))
	case errors.As(err, &unsettled):
		diags.AddAttributeError(path.Root("name"), "Template create got no answer", fmt.Sprintf(
			"%v.\n\nNothing is in state. Apply again: if E2B made the template meanwhile, the apply says so and how to import it.", err))
	case e2b.IsTemplateNameTaken(err):
		diags.AddAttributeError(path.Root("name"), "Template name taken", fmt.Sprintf(
			"E2B refused the name %q: another template has it (a template E2B keeps, a snapshot, or a template whose ID "+
				"it is). Choose another name.\n\n%v", name, err))
	case e2b.IsFreeDiskRefused(err):
		diags.AddAttributeError(path.Root("min_free_disk_mb"), "min_free_disk_mb above the team's allowance", fmt.Sprintf(
			"E2B refused min_free_disk_mb for template %s: it is more than the team may ask for. Lower min_free_disk_mb to at "+
				"most the figure E2B names, or remove it to use the team's default.\n\n%v", name, err))
	default:
		base.AddClientError(diags, "Could not build template "+name, err)
	}
}
