package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// How to list what exists, for a template or volume that does not.
const (
	listTemplatesHint = "List the team's templates with the `e2b_templates` data source, `terraform query` with an " +
		"`e2b_template` list block, or `e2b template list` in E2B's CLI, and check the spelling (E2B's own templates " +
		"include \"base\"); a template this configuration builds is referenced as e2b_template.NAME.name."
	listVolumesHint = "List the team's volumes with the `e2b_volumes` data source or `terraform query` with an " +
		"`e2b_volume` list block, and check the spelling; a volume this configuration creates is referenced as " +
		"e2b_volume.NAME.name, so that it exists before the sandbox."
)

// missingTemplateDetail and missingVolumeDetail say what E2B lacks and how to list what it has.
func missingTemplateDetail(attr, ref string) string {
	return fmt.Sprintf("%s = %q: E2B has no template by that name or ID that this team can use. %s", attr, ref, listTemplatesHint)
}

func missingVolumeDetail(name string) string {
	return fmt.Sprintf("volume_mounts names the volume %q, which this team does not have in E2B. %s", name, listVolumesHint)
}

// addSandboxCreateError reports a failed sandbox create; a template or volume E2B does not have gets the
// same message as at plan, tied to its attribute (e2b_sandbox and the ephemeral sandbox).
func addSandboxCreateError(diags *diag.Diagnostics, req e2b.CreateSandboxRequest, err error) {
	if e2b.MissingTemplateOnCreate(err) {
		diags.AddAttributeError(path.Root("template"), "Template not found",
			missingTemplateDetail("template", req.TemplateID)+"\n\nE2B answered: "+err.Error())
		return
	}
	if name, ok := e2b.MissingVolumeOnCreate(err); ok {
		diags.AddAttributeError(path.Root("volume_mounts").AtMapKey(name), "Volume not found",
			missingVolumeDetail(name)+"\n\nE2B answered: "+err.Error())
		return
	}
	base.AddClientError(diags, "Could not create sandbox", err)
}

// checkReferencesAtPlan looks up, with one read each, the template and the volumes that a new
// sandbox (or its replacement) names, when the configuration sets them to known values and the
// provider is configured: a missing one is an error at plan, a look-up that fails a warning (the
// create checks again).
func (r *sandboxResource) checkReferencesAtPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil || resp.Diagnostics.HasError() {
		return // Destroy, or a plan that fails anyway: no read.
	}
	var template, forkFrom, priorTemplate types.String
	var mounts, priorMounts types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("template"), &template)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fork_from"), &forkFrom)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("volume_mounts"), &mounts)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("template"), &priorTemplate)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("volume_mounts"), &priorMounts)...)
	}
	if resp.Diagnostics.HasError() || !forkFrom.IsNull() {
		return
	}
	checkTemplate := !template.IsNull() && !template.IsUnknown() && !template.Equal(priorTemplate)
	var volumes []string
	if !mounts.IsNull() && !mounts.IsUnknown() && !mounts.Equal(priorMounts) {
		for name := range mounts.Elements() {
			volumes = append(volumes, name)
		}
		sort.Strings(volumes)
	}
	if !checkTemplate && len(volumes) == 0 {
		return
	}
	client, diags := r.Data.Client()
	if diags.HasError() {
		return // Not configured yet: the create checks.
	}
	planned := base.PlannedFor(r.Data)
	if checkTemplate && planned.Has(planned.Templates, templateName(template.ValueString())) {
		checkTemplate = false // this run builds it
	}
	volumes = slices.DeleteFunc(volumes, func(v string) bool { return planned.Has(planned.Volumes, v) })
	if !checkTemplate && len(volumes) == 0 {
		return
	}
	if checkTemplate {
		ref := template.ValueString()
		missing, err := client.TemplateMissing(ctx, ref)
		switch {
		case missing:
			resp.Diagnostics.AddAttributeError(path.Root("template"), "Template not found", missingTemplateDetail("template", ref))
		case err != nil:
			warnLookupFailed(&resp.Diagnostics, path.Root("template"), fmt.Sprintf("template %q", ref), err)
		}
	}
	if len(volumes) > 0 {
		missing, err := client.MissingVolumes(ctx, volumes)
		if err != nil {
			warnLookupFailed(&resp.Diagnostics, path.Root("volume_mounts"), "the volumes in volume_mounts", err)
		}
		for _, name := range missing {
			resp.Diagnostics.AddAttributeError(path.Root("volume_mounts").AtMapKey(name), "Volume not found", missingVolumeDetail(name))
		}
	}
}

// templateName is a template reference without its tag.
func templateName(ref string) string {
	name, _, _ := strings.Cut(ref, ":")
	return name
}

// warnLookupFailed warns that a plan-time look-up could not tell (the create checks again);
// a reference it does not look up, or a missing API key (reported by the first real call), is
// passed over silently.
func warnLookupFailed(diags *diag.Diagnostics, at path.Path, what string, err error) {
	if errors.Is(err, e2b.ErrCannotTell) || errors.Is(err, e2b.ErrMissingAPIKey) {
		return
	}
	diags.AddAttributeWarning(at, "Could not check "+what+" at plan",
		"The look-up failed, so the apply's create checks it instead: "+err.Error())
}
