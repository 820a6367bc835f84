package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

var (
	_ resource.ResourceWithConfigure      = &templateResource{}
	_ resource.ResourceWithImportState    = &templateResource{}
	_ resource.ResourceWithIdentity       = &templateResource{}
	_ resource.ResourceWithModifyPlan     = &templateResource{}
	_ resource.ResourceWithValidateConfig = &templateResource{}
)

// Default durations of the timeouts block: builds take minutes.
const (
	defaultTemplateCreateTimeout = 30 * time.Minute
	defaultTemplateUpdateTimeout = 30 * time.Minute
	defaultTemplateDeleteTimeout = 5 * time.Minute
)

// NewTemplateResource returns the e2b_template resource.
func NewTemplateResource() resource.Resource {
	return &templateResource{base.ResourceConfig{TypeName: "_template"}}
}

// templateResource implements e2b_template.
type templateResource struct {
	base.ResourceConfig
}

type templateIdentityModel struct {
	TemplateID types.String `tfsdk:"template_id"`
}

func (r *templateResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan, config templateResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	client, ok := base.ModelAndClient(ctx, req.Config.Get, &config, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, _ := base.WithTimeout(ctx, plan.Timeouts.Create, defaultTemplateCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.nameFree(ctx, client, plan.Name.ValueString(), &resp.Diagnostics) {
		return
	}

	// Once E2B has made the template, state records it right away, so a
	// build that fails or is interrupted leaves no template behind untracked.
	saveRequested := func(req e2b.TemplateRequested) {
		plan.TemplateID, plan.ID = types.StringValue(req.TemplateID), types.StringValue(req.TemplateID)
		plan.BuildID, plan.BuildStatus = types.StringValue(req.BuildID), types.StringValue(e2b.BuildStatusBuilding)
		plan.Names = convert.StringListValue(req.Names)
		saved := plan
		saved.nullUnknowns()
		resp.Diagnostics.Append(resp.State.Set(ctx, &saved)...)
		resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: plan.TemplateID})...)
	}
	res, outcome := r.build(ctx, client, &plan, &config, buildNewTemplate, saveRequested, &resp.Diagnostics)
	if outcome != buildDone {
		// A failed build is an error, and Terraform taints the template; one
		// the provider stopped following is not (see buildUnfinished).
		if !plan.TemplateID.IsUnknown() {
			plan.nullUnknowns()
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		return
	}
	resp.Diagnostics.Append(recordContextBuilt(ctx, &plan, resp.Private)...)
	if plan.Public.ValueBool() {
		if _, err := client.SetTemplatePublic(ctx, res.TemplateID, true); err != nil {
			base.AddClientError(&resp.Diagnostics, "Template built but could not be made public", err)
		}
	}
	r.refresh(ctx, client, &plan, &resp.Diagnostics)
	plan.nullUnknowns()
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: plan.TemplateID})...)
}

// nameFree reports whether no template of the team has the name. E2B
// builds into an existing template of the same name, so creating must check
// first: the resource would take over a template it does not own, and
// destroying it would delete that template. A name E2B refuses to show (403)
// is left for E2B to judge.
func (r *templateResource) nameFree(ctx context.Context, client *e2b.Client, name string, diags *diag.Diagnostics) bool {
	existing, err := client.GetTemplate(ctx, name)
	switch {
	case err == nil:
		diags.AddAttributeError(path.Root("name"), "Template already exists", fmt.Sprintf(
			"Template %s already exists (template ID %s). Import it to manage it with this configuration "+
				"(terraform import <address> %s, or an import block), or choose another name.", name, existing.TemplateID, name))
		return false
	case e2b.IsNotFound(err) || e2b.IsForbidden(err):
		return true
	}
	base.AddClientError(diags, "Could not check whether template "+name+" exists", err)
	return false
}

// build runs one build for the planned configuration (write-only
// credentials come from config) and records it in plan: a new template, a
// new build, or the build in plan carried on (mode). Errors and warnings are
// in diags.
func (r *templateResource) build(ctx context.Context, client *e2b.Client, plan, config *templateResourceModel,
	mode buildMode, onRequested func(e2b.TemplateRequested), diags *diag.Diagnostics) (*e2b.BuildResult, buildOutcome) {
	spec, d := plan.spec(ctx)
	diags.Append(d...)
	if diags.HasError() {
		return nil, buildFailed
	}
	if config.FromImageRegistry != nil {
		spec.build.FromImageRegistry = config.FromImageRegistry.auth()
	}
	if spec.digest != plan.ContextSHA256.ValueString() && !plan.ContextSHA256.IsUnknown() && !plan.ContextSHA256.IsNull() {
		diags.AddAttributeError(path.Root("context"), "Context changed during apply",
			"A file that a COPY step sends changed between plan and apply. Run plan again to build what is there now.")
		return nil, buildFailed
	}
	plan.ContextSHA256 = convert.OptionalString(spec.digest)
	// Values of env steps are sensitive; build logs may echo them.
	secrets := envSecrets(spec.build.Steps, plan.Steps)
	ctx = tflog.MaskAllFieldValuesStrings(tflog.MaskMessageStrings(ctx, secrets...), secrets...)
	fields := map[string]any{"template": spec.build.Name}
	opts := e2b.BuildOptions{
		OnRequested: func(req e2b.TemplateRequested) {
			fields["template_id"], fields["build_id"] = req.TemplateID, req.BuildID
			tflog.Info(ctx, "template build requested", fields)
			if onRequested != nil {
				onRequested(req)
			}
		},
		OnUpload: func(step int, src string, uploaded bool) {
			msg := "template files already at E2B"
			if uploaded {
				msg = "template files uploaded"
			}
			tflog.Info(ctx, msg, map[string]any{"step": step, "src": src, "build_id": fields["build_id"]})
		},
		OnLog: func(l e2b.BuildLogEntry) {
			logBuildLine(ctx, l, map[string]any{
				"template_id": fields["template_id"], "build_id": fields["build_id"], "step": l.Step, "level": l.Level,
			})
		},
	}
	var res *e2b.BuildResult
	var err error
	if mode == buildCarryOn {
		fields["template_id"], fields["build_id"] = plan.TemplateID.ValueString(), plan.BuildID.ValueString()
		res, err = client.ContinueTemplateBuild(ctx, plan.TemplateID.ValueString(), plan.BuildID.ValueString(), spec.build, opts)
	} else {
		spec.build.New = mode == buildNewTemplate
		res, err = client.BuildTemplate(ctx, spec.build, opts)
	}
	if res != nil && mode != buildCarryOn {
		plan.TemplateID, plan.ID = types.StringValue(res.TemplateID), types.StringValue(res.TemplateID)
		plan.BuildID = types.StringValue(res.BuildID)
		plan.Names = convert.StringListValue(res.Names)
	}
	if err != nil {
		plan.BuildStatus = types.StringValue(statusAfterError(res, err))
		var bf *e2b.BuildFailedError
		switch {
		case errors.As(err, &bf):
			// The log tail is what the build's own commands printed: made safe for a terminal.
			diags.AddError("Template build failed", e2b.SafeText(maskAll(err.Error(), secrets))+
				"\n\nThe whole build log is in the provider log (TF_LOG=INFO) and in the e2b_template_build data source."+
				failedBuildNext(mode))
		case ctx.Err() != nil && res != nil:
			diags.AddWarning("Template build not finished", unfinishedBuildMessage(ctx, mode, res))
			return res, buildUnfinished
		default:
			addCreateError(diags, spec.build.Name, err)
		}
		return res, buildFailed
	}
	plan.BuildStatus = types.StringValue(res.Status.Status)
	return res, buildDone
}

// statusAfterError is what state records of a build that did not succeed:
// "error" only when E2B said the build failed; a build the provider stopped
// following keeps its last known status, "building" before the first poll.
func statusAfterError(res *e2b.BuildResult, err error) string {
	var bf *e2b.BuildFailedError
	switch {
	case errors.As(err, &bf):
		return e2b.BuildStatusError
	case res != nil && res.Status != nil && res.Status.Status != "":
		return res.Status.Status
	}
	return e2b.BuildStatusBuilding
}

// refresh reads names, the public flag and the current build's resources.
func (r *templateResource) refresh(ctx context.Context, client *e2b.Client, m *templateResourceModel, diags *diag.Diagnostics) {
	t, err := client.GetTemplate(ctx, m.TemplateID.ValueString())
	if err != nil {
		diags.AddWarning("Could not read the template back", err.Error())
		return
	}
	m.apply(t)
}

func (m *templateResourceModel) apply(t *e2b.TemplateWithBuilds) {
	m.TemplateID, m.ID = types.StringValue(t.TemplateID), types.StringValue(t.TemplateID)
	m.Public = types.BoolValue(t.Public)
	m.Names = convert.StringListValue(t.Names)
	for _, b := range t.Builds {
		if b.BuildID == m.BuildID.ValueString() {
			m.BuildStatus = types.StringValue(b.Status)
			m.CPUCount, m.MemoryMB = types.Int32Value(b.CPUCount), types.Int32Value(b.MemoryMB)
		}
	}
}

// nullUnknowns turns values still unknown into nulls before saving.
func (m *templateResourceModel) nullUnknowns() {
	for _, s := range []*types.String{&m.ID, &m.TemplateID, &m.BuildID, &m.BuildStatus, &m.ContextSHA256} {
		if s.IsUnknown() {
			*s = types.StringNull()
		}
	}
	if m.Names.IsUnknown() {
		m.Names = types.ListNull(types.StringType)
	}
	if m.CPUCount.IsUnknown() {
		m.CPUCount = types.Int32Null()
	}
	if m.MemoryMB.IsUnknown() {
		m.MemoryMB = types.Int32Null()
	}
}

func (r *templateResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state templateResourceModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	t, err := client.GetTemplate(ctx, state.TemplateID.ValueString())
	if e2b.IsNotFound(err) {
		base.RemoveGone(ctx, resp, "Template no longer exists",
			fmt.Sprintf("Template %s was deleted outside Terraform; it was removed from state and the next apply builds it again.", state.TemplateID.ValueString()),
			templateIdentityModel{TemplateID: state.TemplateID})
		return
	}
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read template "+state.TemplateID.ValueString(), err)
		return
	}
	state.apply(t)
	resp.Diagnostics.Append(recordContextRead(ctx, &state, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: state.TemplateID})...)
}

func (r *templateResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state, config templateResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	client, ok := base.ModelAndClient(ctx, req.Config.Get, &config, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, _ := base.WithTimeout(ctx, plan.Timeouts.Update, defaultTemplateUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	if mode, ok := updateBuildMode(&plan); ok {
		// A new build of the same template; on failure the state keeps the
		// last good build, so the next plan tries again. A build carried on
		// that failed is recorded as failed: the next plan starts a new one.
		res, outcome := r.build(ctx, client, &plan, &config, mode, nil, &resp.Diagnostics)
		if outcome == buildUnfinished || outcome == buildFailed && mode == buildCarryOn && !plan.BuildStatus.IsUnknown() {
			plan.nullUnknowns()
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: plan.TemplateID})...)
		}
		if outcome != buildDone {
			return
		}
		resp.Diagnostics.Append(recordContextBuilt(ctx, &plan, resp.Private)...)
		if res.TemplateID != state.TemplateID.ValueString() {
			resp.Diagnostics.AddWarning("Template ID changed",
				fmt.Sprintf("E2B built %s into template %s, not %s as before.", plan.Name.ValueString(), res.TemplateID, state.TemplateID.ValueString()))
		}
	}
	if !plan.Public.Equal(state.Public) || plan.BuildID.IsUnknown() && plan.Public.ValueBool() {
		if _, err := client.SetTemplatePublic(ctx, plan.TemplateID.ValueString(), plan.Public.ValueBool()); err != nil {
			base.AddClientAttributeError(&resp.Diagnostics, path.Root("public"), "Could not change whether the template is public", err)
			return
		}
	}
	r.refresh(ctx, client, &plan, &resp.Diagnostics)
	plan.nullUnknowns()
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: plan.TemplateID})...)
}

func (r *templateResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state templateResourceModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel, _ := base.WithTimeout(ctx, state.Timeouts.Delete, defaultTemplateDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	err := client.DeleteTemplate(ctx, state.TemplateID.ValueString())
	switch {
	case err == nil || e2b.IsNotFound(err):
	case e2b.IsBadRequest(err):
		resp.Diagnostics.AddError("Could not delete template "+state.TemplateID.ValueString(),
			"E2B refuses to delete a template while sandboxes started from it are running or paused. "+
				"Kill them (or destroy the e2b_sandbox resources first), then destroy again.\n\n"+err.Error())
	default:
		base.AddClientError(&resp.Diagnostics, "Could not delete template "+state.TemplateID.ValueString(), err)
	}
}

func (r *templateResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref := base.ImportedID(ctx, req, "template_id", &resp.Diagnostics)
	client, diags := r.Data.Client()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, err := client.GetTemplate(ctx, ref)
	if err != nil {
		if e2b.IsNotFound(err) {
			resp.Diagnostics.AddError("Template not found", fmt.Sprintf("No template %q is visible to this API key. Import by template ID or name.", ref))
			return
		}
		base.AddClientError(&resp.Diagnostics, "Could not read template "+ref, err)
		return
	}
	name := t.TemplateID
	if len(t.Names) > 0 {
		name = aliasOf(t.Names[0])
	}
	// The newest ready build is the template's; without one (a create whose
	// answer was lost leaves only a build never started), the newest build
	// still tells the resources E2B gave it.
	var latest, newest *e2b.TemplateBuild
	for i := range t.Builds {
		b := &t.Builds[i]
		if b.Status == e2b.BuildStatusReady && (latest == nil || b.CreatedAt.After(latest.CreatedAt)) {
			latest = b
		}
		if newest == nil || b.CreatedAt.After(newest.CreatedAt) {
			newest = b
		}
	}
	set := func(p string, v any) { resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(p), v)...) }
	set("id", t.TemplateID)
	set("template_id", t.TemplateID)
	set("name", name)
	set("public", t.Public)
	set("skip_cache", false)
	set("names", convert.StringListValue(t.Names))
	if latest != nil {
		set("build_id", latest.BuildID)
		set("build_status", latest.Status)
	}
	if latest == nil {
		latest = newest
	}
	if latest != nil {
		set("cpu_count", latest.CPUCount)
		set("memory_mb", latest.MemoryMB)
	}
	resp.Diagnostics.Append(resp.Identity.Set(ctx, templateIdentityModel{TemplateID: types.StringValue(t.TemplateID)})...)
}

// minMaskedLen keeps short values such as "1" or "true" from masking every
// occurrence of them in the logs.
const minMaskedLen = 4

// envSecrets returns the values the steps' env maps set (sensitive in the
// schema), long enough to be masked without masking ordinary words.
func envSecrets(steps []e2b.BuildStep, configured []stepModel) []string {
	sensitive := map[string]bool{}
	for _, s := range configured {
		for _, v := range s.Env.Elements() {
			if sv, ok := v.(types.String); ok {
				sensitive[sv.ValueString()] = true
			}
		}
	}
	var out []string
	for _, st := range steps {
		if st.Type != e2b.StepEnv {
			continue
		}
		for i := 1; i < len(st.Args); i += 2 {
			if v := st.Args[i]; len(v) >= minMaskedLen && sensitive[v] {
				out = append(out, v)
			}
		}
	}
	return out
}

func maskAll(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}
