package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ resource.ResourceWithConfigure   = &snapshotResource{}
	_ resource.ResourceWithImportState = &snapshotResource{}
	_ resource.ResourceWithIdentity    = &snapshotResource{}
	_ resource.ResourceWithModifyPlan  = &snapshotResource{}
)

// NewSnapshotResource returns the e2b_snapshot resource.
func NewSnapshotResource() resource.Resource {
	return &snapshotResource{base.ResourceConfig{TypeName: "_snapshot"}}
}

// snapshotResource is a persistent snapshot of a running sandbox: a template
// new sandboxes start from, with the files (and memory) it had.
type snapshotResource struct {
	base.ResourceConfig
}

type snapshotModel struct {
	ID         types.String `tfsdk:"id"`
	SandboxID  types.String `tfsdk:"sandbox_id"`
	Name       types.String `tfsdk:"name"`
	SnapshotID types.String `tfsdk:"snapshot_id"`
	TemplateID types.String `tfsdk:"template_id"`
	Names      types.List   `tfsdk:"names"`
}

// snapshotIdentity is the resource identity: the snapshot ID, tag included.
type snapshotIdentity struct {
	SnapshotID types.String `tfsdk:"snapshot_id"`
}

func (r *snapshotResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A persistent snapshot of a running sandbox (its files and memory). The sandbox is " +
			"checkpointed briefly and keeps running. A snapshot is a template build: an `e2b_sandbox` whose `template` is " +
			"the snapshot's `snapshot_id` starts with the snapshot's files. Each resource owns exactly its own snapshot: " +
			"snapshots that share a `name` are builds of one template, each under a tag of its own, and destroying one " +
			"deletes only its build's tag (and the template once no other snapshot is left on it). Changing an input " +
			"takes a new snapshot; destroying deletes it (E2B refuses while sandboxes started from it still exist).\n\n" +
			"**When E2B's answer to the create is lost** (a gateway's error, a cut connection, an interrupted run), " +
			"the provider looks among the sandbox's snapshots for up to 75 seconds (E2B ends every request after 70) " +
			"before it snapshots again. A named snapshot is recognised exactly, by its tag of its own. An unnamed one " +
			"has no mark a client can set: the provider lists the sandbox's snapshots before taking it and records " +
			"the one new unnamed snapshot; when several appeared (unnamed snapshots of the same sandbox taken at the " +
			"same moment, by this configuration or anyone) it fails naming them, since E2B's API cannot tell which " +
			"is this run's.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Same as `snapshot_id`.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"sandbox_id": schema.StringAttribute{
				MarkdownDescription: "ID of the running sandbox to snapshot. Required to take a snapshot; an imported " +
					"snapshot may leave it out (E2B's listing of snapshots does not name their source sandbox). " +
					"Setting it on a snapshot imported without it replaces the snapshot: a new snapshot of that sandbox, and the " +
					"imported one deleted.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    validators.SandboxID(),
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Optional name of the snapshot template, without a tag. Snapshots with the same name " +
					"(from this or other resources, also a replacement made with `create_before_destroy`) are builds of one " +
					"template `<namespace>/<name>`, each under a tag of its own; none replaces or deletes another.",
				Optional: true,
				Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[^:]*$`),
					"must not contain ':': each snapshot gets a tag of its own")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(snapshotNameChanged,
					"Changing the name takes a new snapshot.", "Changing the name takes a new snapshot.")},
			},
			"snapshot_id": schema.StringAttribute{
				MarkdownDescription: "ID of the snapshot, including its tag: `<template_id>:default`, or " +
					"`<namespace>/<name>:snap-<random>` when named. Use it as an `e2b_sandbox` `template`.",
				Computed:      true,
				PlanModifiers: stable,
			},
			"template_id": schema.StringAttribute{
				MarkdownDescription: "The template the snapshot is a build of: the snapshot ID without its tag. Only an " +
					"unnamed snapshot has its template to itself; a named one shares it with the other snapshots of the name.",
				Computed:      true,
				PlanModifiers: stable,
			},
			"names": schema.ListAttribute{
				MarkdownDescription: "Names of the snapshot template.",
				Computed:            true,
				ElementType:         types.StringType,
				PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// snapshotNameChanged replaces on a name change, except when an imported
// snapshot (no name in state) already carries the configured name.
func snapshotNameChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.StateValue.IsNull() && !req.PlanValue.IsNull() && !req.PlanValue.IsUnknown() {
		var names []string
		_ = req.State.GetAttribute(ctx, path.Root("names"), &names)
		if snapshotHasName(names, req.PlanValue.ValueString()) {
			return
		}
	}
	resp.RequiresReplace = true
}

func snapshotHasName(names []string, name string) bool {
	return slices.ContainsFunc(names, func(n string) bool {
		n, _, _ = strings.Cut(n, ":")
		return n == name || strings.HasSuffix(n, "/"+name)
	})
}

func (r *snapshotResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"snapshot_id": identityschema.StringAttribute{RequiredForImport: true, Description: "Snapshot ID, with its tag."},
		},
	}
}

// ModifyPlan refuses, at plan, a new snapshot without the sandbox to take it of.
func (r *snapshotResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() {
		return
	}
	var sandboxID types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sandbox_id"), &sandboxID)...)
	if !resp.Diagnostics.HasError() && sandboxID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("sandbox_id"), "Missing sandbox_id",
			"A new snapshot needs sandbox_id, the running sandbox to snapshot.")
	}
}

func (r *snapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan snapshotModel
	client, ok := base.ModelAndClient(ctx, req.Plan.Get, &plan, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	sandboxID := plan.SandboxID.ValueString()
	snap, err := client.CreateSnapshot(ctx, sandboxID, plan.Name.ValueString())
	if e2b.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("sandbox_id"), "Could not snapshot sandbox",
			fmt.Sprintf("Sandbox %q was not found or is paused; only a running sandbox can be snapshotted.\n\n%s", sandboxID, err))
		return
	}
	snapshotCreate := base.KeptCreate{Kind: "snapshot", Attr: path.Empty(), ImportID: func(id string) string { return sandboxID + ":" + id }}
	if !snapshotCreate.Settled(&resp.Diagnostics, "Could not snapshot sandbox "+sandboxID, err) {
		return
	}
	plan.apply(*snap)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, snapshotIdentity{SnapshotID: plan.SnapshotID})...)
}

func (r *snapshotResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state snapshotModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	snap, err := client.FindSnapshot(ctx, state.SnapshotID.ValueString())
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not list snapshots", err)
		return
	}
	if snap == nil {
		base.RemoveGone(ctx, resp, "Snapshot no longer exists",
			fmt.Sprintf("Snapshot %q was not found; it was removed from state.", state.SnapshotID.ValueString()),
			snapshotIdentity{SnapshotID: state.SnapshotID})
		return
	}
	state.apply(*snap)
	if state.Name.IsNull() {
		state.Name = snapshotName(snap.Names) // imported: the name it has
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, snapshotIdentity{SnapshotID: state.SnapshotID})...)
}

// Update only happens when an imported snapshot gets its existing name in
// configuration: nothing changes remotely.
func (r *snapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan snapshotModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, snapshotIdentity{SnapshotID: plan.SnapshotID})...)
}

func (r *snapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state snapshotModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	id := state.SnapshotID.ValueString()
	err := client.DeleteSnapshot(ctx, id)
	switch {
	case err == nil, e2b.IsNotFound(err):
	case e2b.IsBadRequest(err):
		resp.Diagnostics.AddError("Could not delete snapshot "+id,
			"E2B refused: sandboxes started from this snapshot still exist (running or paused). "+
				"Destroy them first.\n\n"+err.Error())
	default:
		base.AddClientError(&resp.Diagnostics, "Could not delete snapshot "+id, err)
	}
}

// ImportState takes the snapshot ID ("<name or id>:<tag>", as E2B's
// listing and `e2b_snapshot.snapshot_id` show it), the same prefixed with its
// source sandbox (<sandbox_id>:<snapshot_id>), or the identity. A snapshot
// ID has at most one colon, so two or more mean the prefixed form; the
// sandbox of a snapshot made elsewhere is often gone, and E2B's listing
// does not name it.
func (r *snapshotResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	snapshotID := base.ImportedID(ctx, req, "snapshot_id", &resp.Diagnostics)
	if strings.Count(req.ID, ":") >= 2 {
		sandboxID, rest, _ := strings.Cut(req.ID, ":")
		if msg := validators.CheckSandboxID(sandboxID); msg != "" {
			resp.Diagnostics.AddError("Invalid import ID", msg+
				" An import ID is a snapshot ID (\"<name or id>:<tag>\"), optionally after its source sandbox's ID and a colon.")
			return // Refused before any request.
		}
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("sandbox_id"), sandboxID)...)
		snapshotID = rest
	}
	if snapshotID == "" || strings.HasPrefix(snapshotID, ":") || strings.HasSuffix(snapshotID, ":") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected a snapshot ID such as \"my-team/ready:default\" "+
			"or \"abc123:default\", optionally as <sandbox_id>:<snapshot_id> (\"i1a2b3c4:abc123:default\"); got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("snapshot_id"), snapshotID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), snapshotID)...)
}

// snapshotName is the name of a named snapshot ("<namespace>/<name>" gives
// name; a tag, which E2B's names no longer carry, is dropped), null for an
// unnamed one.
func snapshotName(names []string) types.String {
	if len(names) == 0 {
		return types.StringNull()
	}
	n, _, _ := strings.Cut(names[0], ":")
	return types.StringValue(n[strings.LastIndex(n, "/")+1:])
}

func (m *snapshotModel) apply(s e2b.SnapshotInfo) {
	m.ID = types.StringValue(s.SnapshotID)
	m.SnapshotID = types.StringValue(s.SnapshotID)
	m.TemplateID = types.StringValue(s.Template())
	m.Names = convert.StringListValue(s.Names)
}
