package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ resource.ResourceWithConfigure   = &templateTagResource{}
	_ resource.ResourceWithImportState = &templateTagResource{}
	_ resource.ResourceWithIdentity    = &templateTagResource{}
)

// NewTemplateTagResource returns the e2b_template_tag resource.
func NewTemplateTagResource() resource.Resource {
	return &templateTagResource{base.ResourceConfig{TypeName: "_template_tag"}}
}

// templateTagResource points one tag of a template at one build.
type templateTagResource struct {
	base.ResourceConfig
}

type templateTagModel struct {
	ID        types.String      `tfsdk:"id"`
	Template  types.String      `tfsdk:"template"`
	Tag       types.String      `tfsdk:"tag"`
	BuildID   types.String      `tfsdk:"build_id"`
	CreatedAt timetypes.RFC3339 `tfsdk:"created_at"`
}

type templateTagIdentity struct {
	Template types.String `tfsdk:"template"`
	Tag      types.String `tfsdk:"tag"`
}

// tagValidator and buildIDValidator apply E2B's rules at plan time.
func tagValidator() validator.String {
	return validators.StringRule{Desc: "must be a tag as E2B stores it", Summary: "Invalid tag", Check: validators.FromError(e2b.ValidateTemplateTag)}
}

func buildIDValidator() validator.String {
	return validators.StringRule{Desc: "must be a build ID", Summary: "Invalid build ID", Check: validators.FromError(e2b.ValidateBuildID)}
}

func (r *templateTagResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Points a tag of a template at a build, to promote a tested build (for example `prod`) " +
			"without building again. Sandboxes start from it as `<name>:<tag>`. Changing `build_id` moves the tag in " +
			"place; destroying removes only this tag. Creating fails when the template already has the tag (import it instead).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<template>:<tag>`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"template": schema.StringAttribute{
				MarkdownDescription: "Template name (or ID), such as `e2b_template.app.name`. Changing it replaces the tag.",
				Required:            true,
				PlanModifiers:       replace,
				Validators:          validators.TemplateFilter(),
			},
			"tag": schema.StringAttribute{
				MarkdownDescription: "The tag, such as `prod`: lower-case letters, digits, `.`, `_` and `-`, not a UUID. `default` is E2B's own: it follows every new build and cannot be removed. Changing it replaces the tag.",
				Required:            true,
				PlanModifiers:       replace,
				Validators: []validator.String{
					tagValidator(),
					stringvalidator.NoneOf("default"),
				},
			},
			"build_id": schema.StringAttribute{
				MarkdownDescription: "ID of the build the tag points at, such as `e2b_template.app.build_id` (a build ID, not another tag). Changed in place.",
				Required:            true,
				Validators:          []validator.String{buildIDValidator()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the tag was last pointed at its build (RFC 3339).",
				Computed:            true,
				CustomType:          timetypes.RFC3339Type{},
			},
		},
	}
}

func (r *templateTagResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"template": identityschema.StringAttribute{RequiredForImport: true, Description: "Template name or ID."},
			"tag":      identityschema.StringAttribute{RequiredForImport: true, Description: "The tag."},
		},
	}
}

func (r *templateTagResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.applyPlan(ctx, req.Plan, &resp.State, resp.Identity, tagFree, &resp.Diagnostics)
}

func (r *templateTagResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.applyPlan(ctx, req.Plan, &resp.State, resp.Identity, nil, &resp.Diagnostics)
}

// applyPlan points the planned tag at its build and records it; check, when
// set, must pass first.
func (r *templateTagResource) applyPlan(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, identity *tfsdk.ResourceIdentity,
	check func(context.Context, *e2b.Client, *templateTagModel, *diag.Diagnostics) bool, diags *diag.Diagnostics) {
	var m templateTagModel
	client, ok := base.ModelAndClient(ctx, plan.Get, &m, r.Data, diags)
	if !ok || check != nil && !check(ctx, client, &m, diags) {
		return
	}
	assignTag(ctx, client, &m, diags)
	if diags.HasError() {
		return
	}
	diags.Append(state.Set(ctx, &m)...)
	diags.Append(identity.Set(ctx, templateTagIdentity{Template: m.Template, Tag: m.Tag})...)
}

// tagFree reports whether the template has no such tag yet. Assigning would
// silently move an existing tag, which this resource did not make and would
// then remove on destroy. When the tags cannot be listed, assignTag reports why.
func tagFree(ctx context.Context, client *e2b.Client, m *templateTagModel, diags *diag.Diagnostics) bool {
	existing, err := findTag(ctx, client, m.Template.ValueString(), m.Tag.ValueString())
	if err != nil || existing == nil {
		return true
	}
	diags.AddAttributeError(path.Root("tag"), "Tag already exists", fmt.Sprintf(
		"Tag %s of template %s already exists and points at build %s. Import it to manage it with this configuration "+
			"(terraform import <address> %s:%s, or an import block), or choose another tag.",
		m.Tag.ValueString(), m.Template.ValueString(), existing.BuildID, m.Template.ValueString(), m.Tag.ValueString()))
	return false
}

// assignTag points the tag at the build ("<template>:<build_id>" names the build).
func assignTag(ctx context.Context, client *e2b.Client, m *templateTagModel, diags *diag.Diagnostics) {
	target := m.Template.ValueString() + ":" + m.BuildID.ValueString()
	buildID, _, err := client.AssignTemplateTags(ctx, target, []string{m.Tag.ValueString()})
	if err != nil {
		if e2b.IsNotFound(err) {
			diags.AddAttributeError(path.Root("build_id"), "Build not found",
				fmt.Sprintf("E2B has no finished build %s of template %s to tag: %v", m.BuildID.ValueString(), m.Template.ValueString(), err))
			return
		}
		base.AddClientError(diags, fmt.Sprintf("Could not point tag %s at build %s", m.Tag.ValueString(), m.BuildID.ValueString()), err)
		return
	}
	m.ID = types.StringValue(m.Template.ValueString() + ":" + m.Tag.ValueString())
	m.BuildID = types.StringValue(buildID)
	m.CreatedAt = timetypes.NewRFC3339Null()
	if tag, err := findTag(ctx, client, m.Template.ValueString(), m.Tag.ValueString()); err == nil && tag != nil {
		m.CreatedAt = timetypes.NewRFC3339TimeValue(tag.CreatedAt)
	}
}

func findTag(ctx context.Context, client *e2b.Client, template, tag string) (*e2b.TemplateTag, error) {
	tags, err := client.ListTemplateTags(ctx, template)
	if err != nil {
		return nil, err
	}
	var found *e2b.TemplateTag
	for i := range tags {
		if tags[i].Tag == tag && (found == nil || tags[i].CreatedAt.After(found.CreatedAt)) {
			found = &tags[i]
		}
	}
	return found, nil
}

func (r *templateTagResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state templateTagModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	tag, err := findTag(ctx, client, state.Template.ValueString(), state.Tag.ValueString())
	if err != nil && !e2b.IsNotFound(err) {
		base.AddClientError(&resp.Diagnostics, "Could not list the tags of template "+state.Template.ValueString(), err)
		return
	}
	if tag == nil {
		base.RemoveGone(ctx, resp, "Template tag no longer exists",
			fmt.Sprintf("Tag %s of template %s was removed outside Terraform (or its template was deleted); it was removed from state.",
				state.Tag.ValueString(), state.Template.ValueString()),
			templateTagIdentity{Template: state.Template, Tag: state.Tag})
		return
	}
	state.ID = types.StringValue(state.Template.ValueString() + ":" + state.Tag.ValueString())
	state.BuildID = types.StringValue(tag.BuildID)
	state.CreatedAt = timetypes.NewRFC3339TimeValue(tag.CreatedAt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, templateTagIdentity{Template: state.Template, Tag: state.Tag})...)
}

func (r *templateTagResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state templateTagModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	err := client.RemoveTemplateTags(ctx, state.Template.ValueString(), []string{state.Tag.ValueString()})
	if err != nil && !e2b.IsNotFound(err) {
		base.AddClientError(&resp.Diagnostics, fmt.Sprintf("Could not remove tag %s of template %s", state.Tag.ValueString(), state.Template.ValueString()), err)
	}
}

func (r *templateTagResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var template, tag string
	if req.ID != "" {
		i := strings.LastIndex(req.ID, ":")
		if i <= 0 || i == len(req.ID)-1 {
			resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Import ID %q must be <template>:<tag>, such as my-app:prod.", req.ID))
			return
		}
		template, tag = req.ID[:i], req.ID[i+1:]
	} else {
		var ident templateTagIdentity
		resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
		template, tag = ident.Template.ValueString(), ident.Tag.ValueString()
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("template"), template)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("tag"), tag)...)
}
