package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// copySourceValidator applies E2B's rule for COPY sources: relative, inside
// the context.
func copySourceValidator() validator.String {
	return validators.StringRule{Desc: "must be a path inside the context directory", Summary: "Invalid COPY source", Check: func(s string) string {
		if err := buildcontext.ValidateCopySource(s); err != nil {
			return "must be a relative path inside the context directory (" + err.Error() + ")"
		}
		return ""
	}}
}

// templateNameChanged replaces on a name change, except when an imported
// template already carries the configured name (with or without namespace).
func templateNameChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() || req.PlanValue.IsNull() {
		resp.RequiresReplace = true
		return
	}
	var names []string
	_ = req.State.GetAttribute(ctx, path.Root("names"), &names)
	want := req.PlanValue.ValueString()
	resp.RequiresReplace = !slices.ContainsFunc(names, func(n string) bool {
		n, _, _ = strings.Cut(n, ":")
		return n == want || aliasOf(n) == want && !strings.Contains(want, "/")
	})
}

func (r *templateResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !collectionsKnown(req.Config.Raw) {
		return
	}
	var m templateResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// At most one base here; a new build needs exactly one (ModifyPlan), an
	// imported template left as it is none.
	if set := m.basesSet(); len(set) > 1 {
		resp.Diagnostics.AddAttributeError(path.Root(set[1]), "More than one template base",
			"Only one of from_image, from_template, from_image_registry and dockerfile may be set; "+strings.Join(set, " and ")+" are.")
	}
	if reg := m.FromImageRegistry; reg != nil && m.buildInputsKnown() && !reg.PasswordWO.IsUnknown() &&
		!reg.AWSSecretAccessKeyWO.IsUnknown() && !reg.GCPServiceAccountJSONWO.IsUnknown() {
		if msg := reg.check(); msg != "" {
			resp.Diagnostics.AddAttributeError(path.Root("from_image_registry"), "Incomplete registry credentials", "from_image_registry: "+msg+".")
		}
	}
	if !m.Dockerfile.IsNull() && !m.Dockerfile.IsUnknown() {
		if _, err := e2b.ParseDockerfile(m.Dockerfile.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("dockerfile"), "Dockerfile cannot be built by E2B", err.Error())
		}
	}
}

// ModifyPlan hashes the files the COPY steps send and decides whether the
// change is a new build: build_id stays when no build input changed.
//
// Terraform plans every change twice: at plan, and again at apply before
// applying it, where each known value must come out the same or Terraform
// fails with "Provider produced inconsistent final plan". That second plan
// sees the prior state (as refreshed by the plan), never the first plan's
// values, so context_sha256 is planned known only when it can be the same
// both times: taken from the prior state's record of what the context held
// when Terraform refreshed the template (contextRecord), or equal to the
// state's value. Otherwise it is known after apply, and a changed context
// is caught by the apply itself ("Context changed during apply").
func (r *templateResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	defer r.checkFromTemplateAtPlan(ctx, req, resp) // last: only a plan without other errors reads
	creating := req.State.Raw.IsNull()
	set := func(p string, v any) { resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(p), v)...) }
	// Computed lists (names) are unknown in plans; only the configuration
	// decides whether the build inputs can be read.
	if !collectionsKnown(req.Config.Raw) {
		set("context_sha256", types.StringUnknown())
		if !creating {
			set("build_id", types.StringUnknown())
			set("build_status", types.StringUnknown())
		}
		return
	}
	var plan, config, state templateResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !creating {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if creating && config.hasNoBase() {
		resp.Diagnostics.AddAttributeError(path.Root("from_image"), "Missing template base",
			"A new template needs one of from_image, from_template, from_image_registry and dockerfile.")
		return
	}
	// The configuration, not the plan: cpu_count and memory_mb are unknown in
	// a plan when E2B picks them.
	if !config.buildInputsKnown() {
		plan.ContextSHA256 = types.StringUnknown()
	} else {
		spec, diags := config.spec(ctx)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		for _, w := range spec.warnings {
			resp.Diagnostics.AddAttributeWarning(path.Root("dockerfile"), "Dockerfile instruction ignored", w)
		}
		rec, diags := readContextRecord(ctx, req.Private)
		resp.Diagnostics.Append(diags...)
		var prior *templateResourceModel
		if !creating {
			prior = &state
		}
		plan.ContextSHA256 = plannedContext(spec, rec, prior, &resp.Diagnostics)
	}
	set("context_sha256", plan.ContextSHA256)
	if creating {
		return
	}
	set("id", state.ID)
	set("template_id", state.TemplateID)
	if plan.ContextSHA256.IsUnknown() || buildInputsDiffer(&plan, &state) || state.buildFailedAtE2B() {
		if config.hasNoBase() {
			resp.Diagnostics.AddAttributeError(path.Root("from_image"), "Missing template base",
				"This change needs a new build, and a build needs one of from_image, from_template, from_image_registry "+
					"and dockerfile (with the steps). An imported template without them is kept as E2B has it only while "+
					"nothing that takes a build changes.")
			return
		}
		set("build_id", types.StringUnknown())
		set("build_status", types.StringUnknown())
		set("names", types.ListUnknown(types.StringType))
		return
	}
	set("build_id", state.BuildID)
	set("build_status", state.BuildStatus)
	if state.buildSettling() {
		set("build_status", types.StringUnknown()) // the update carries the build on
	}
	if plan.Public.Equal(state.Public) {
		set("names", state.Names)
	} else {
		set("names", types.ListUnknown(types.StringType))
	}
}

// hasNoBase reports a configuration without any base: an imported template
// whose build inputs were never given (E2B does not return them).
func (m *templateResourceModel) hasNoBase() bool {
	return len(m.basesSet()) == 0
}

// basesSet names the bases the configuration sets (unknown counts as set).
func (m *templateResourceModel) basesSet() []string {
	var set []string
	for i, null := range []bool{m.FromImage.IsNull(), m.FromTemplate.IsNull(), m.FromImageRegistry == nil, m.Dockerfile.IsNull()} {
		if !null {
			set = append(set, templateBases[i])
		}
	}
	return set
}

// plannedContext is the planned context_sha256 for spec (hashed now): what
// the refresh recorded when it read the same COPY inputs, else the state's
// value when the files still hash to it, else known after apply.
func plannedContext(spec *templateSpec, rec *contextRecord, state *templateResourceModel, diags *diag.Diagnostics) types.String {
	switch {
	case spec.digest == "":
		return types.StringNull()
	case rec != nil && rec.Inputs == spec.copyInputs:
		if rec.SHA256 != spec.digest {
			diags.AddAttributeWarning(path.Root("context"), "Context changed since Terraform read it",
				"A file that a COPY step sends changed after Terraform read the context for this run (when it refreshed the "+
					"template, or, with -refresh=false, when it last refreshed or applied it). The plan keeps what was read then: "+
					"an apply that builds stops with \"Context changed during apply\" and builds nothing. "+
					"Run plan again (with refresh) to build what is there now.")
		}
		return types.StringValue(rec.SHA256)
	case state != nil && state.ContextSHA256.ValueString() == spec.digest:
		return types.StringValue(spec.digest)
	}
	return types.StringUnknown()
}

// contextRecordKey is the private state key of contextRecord.
const contextRecordKey = "context"

// contextRecord is what the context held when Terraform last read it for
// this template (at refresh, or when an apply built it): private state, so
// that the plan and Terraform's second plan at apply agree on it.
type contextRecord struct {
	Inputs string `json:"inputs"` // templateSpec.copyInputs
	SHA256 string `json:"sha256"` // the digest then
}

func readContextRecord(ctx context.Context, p base.PrivateState) (*contextRecord, diag.Diagnostics) {
	if p == nil {
		return nil, nil
	}
	raw, diags := p.GetKey(ctx, contextRecordKey)
	if len(raw) == 0 || diags.HasError() {
		return nil, diags
	}
	var rec contextRecord
	if json.Unmarshal(raw, &rec) != nil || rec.Inputs == "" || rec.SHA256 == "" {
		return nil, diags // from another version: ignored
	}
	return &rec, diags
}

// writeContextRecord records rec, or removes the record when rec is nil.
func writeContextRecord(ctx context.Context, p base.PrivateState, rec *contextRecord) diag.Diagnostics {
	if p == nil {
		return nil
	}
	var raw []byte
	if rec != nil {
		raw, _ = json.Marshal(rec) // two strings always encode
	}
	return p.SetKey(ctx, contextRecordKey, raw)
}

// recordContextRead reads the context the state's COPY steps name and
// records it; when it cannot be read the record is removed, and the plan
// reports why. Never an error: a refresh must not fail on local files.
func recordContextRead(ctx context.Context, m *templateResourceModel, p base.PrivateState) diag.Diagnostics {
	var rec *contextRecord
	if m.buildInputsKnown() && !m.Context.IsNull() {
		if spec, diags := m.spec(ctx); !diags.HasError() && spec.digest != "" {
			rec = &contextRecord{Inputs: spec.copyInputs, SHA256: spec.digest}
		}
	}
	return writeContextRecord(ctx, p, rec)
}

// recordContextBuilt records the context an apply just built from.
func recordContextBuilt(ctx context.Context, m *templateResourceModel, p base.PrivateState) diag.Diagnostics {
	spec, diags := m.specWithoutFiles(ctx)
	if diags.HasError() || spec.copyInputs == "" || m.ContextSHA256.IsNull() || m.ContextSHA256.IsUnknown() {
		return writeContextRecord(ctx, p, nil)
	}
	return writeContextRecord(ctx, p, &contextRecord{Inputs: spec.copyInputs, SHA256: m.ContextSHA256.ValueString()})
}

// collectionsKnown reports whether no list, set, map or object in v is
// unknown as a whole (unknown strings and numbers are fine: they decode).
func collectionsKnown(v tftypes.Value) bool {
	known := true
	_ = tftypes.Walk(v, func(_ *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if !v.IsKnown() {
			switch v.Type().(type) {
			case tftypes.List, tftypes.Set, tftypes.Map, tftypes.Object, tftypes.Tuple:
				known = false
			}
			return false, nil
		}
		return known, nil
	})
	return known
}

// checkFromTemplateAtPlan looks up e2b_template's from_template (one read, or two for an ID) when
// the configuration sets it to a known value that differs from the state's: a template E2B does
// not have is an error at plan, as for e2b_sandbox's template.
func (r *templateResource) checkFromTemplateAtPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	base.NotePlannedName(ctx, r.Data, req, false)
	if resp.Diagnostics.HasError() {
		return // The plan fails anyway: no read.
	}
	var from, prior types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("from_template"), &from)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("from_template"), &prior)...)
	}
	if resp.Diagnostics.HasError() || from.IsNull() || from.IsUnknown() || from.Equal(prior) {
		return
	}
	if planned := base.PlannedFor(r.Data); planned.Has(planned.Templates, templateName(from.ValueString())) {
		return // this run builds it
	}
	client, diags := r.Data.Client()
	if diags.HasError() {
		return
	}
	ref := from.ValueString()
	missing, err := client.TemplateMissing(ctx, ref)
	switch {
	case missing:
		resp.Diagnostics.AddAttributeError(path.Root("from_template"), "Template not found", missingTemplateDetail("from_template", ref))
	case err != nil:
		warnLookupFailed(&resp.Diagnostics, path.Root("from_template"), fmt.Sprintf("template %q", ref), err)
	}
}
