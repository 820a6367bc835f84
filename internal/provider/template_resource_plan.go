package provider

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// copySourceValidator applies E2B's rule for COPY sources: relative, inside
// the context.
func copySourceValidator() validator.String {
	return stringRule{desc: "must be a path inside the context directory", summary: "Invalid COPY source", check: func(s string) string {
		if err := e2b.ValidateCopySource(s); err != nil {
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
func (r *templateResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
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
	var plan, config templateResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
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
		plan.ContextSHA256 = optionalString(spec.digest)
	}
	set("context_sha256", plan.ContextSHA256)
	if creating {
		return
	}
	var state templateResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	set("id", state.ID)
	set("template_id", state.TemplateID)
	if plan.ContextSHA256.IsUnknown() || buildInputsDiffer(&plan, &state) || state.buildFailedAtE2B() {
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
