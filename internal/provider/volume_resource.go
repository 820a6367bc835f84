package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

var (
	_ resource.ResourceWithConfigure   = &volumeResource{}
	_ resource.ResourceWithImportState = &volumeResource{}
	_ resource.ResourceWithIdentity    = &volumeResource{}
	_ resource.ResourceWithModifyPlan  = &volumeResource{}
)

// NewVolumeResource returns the e2b_volume resource.
func NewVolumeResource() resource.Resource {
	return &volumeResource{base.ResourceConfig{TypeName: "_volume"}}
}

// volumeResource is a team volume: persistent storage that sandboxes mount.
type volumeResource struct {
	base.ResourceConfig
}

type volumeModel struct {
	ID          types.String `tfsdk:"id"`
	VolumeID    types.String `tfsdk:"volume_id"`
	Name        types.String `tfsdk:"name"`
	ExposeToken types.Bool   `tfsdk:"expose_token"`
	Token       types.String `tfsdk:"token"`
}

// volumeIdentity is the resource identity: the volume's ID.
type volumeIdentity struct {
	VolumeID types.String `tfsdk:"volume_id"`
}

func (r *volumeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A team volume: persistent storage that outlives sandboxes. Mount it with " +
			"`e2b_sandbox.volume_mounts`; every sandbox that mounts it sees the same files. Changing `name` " +
			"replaces the volume (and its files). Destroying it fails while a running or paused sandbox still " +
			"mounts it.\n\n" +
			"**When E2B's answer to the create is lost** (a gateway's error, a cut connection, an interrupted run), " +
			"the provider looks the name up (E2B keeps volume names unique in a team) and records the volume only " +
			"when it was not among the team's volumes listed just before the create. A volume that already had the " +
			"name is never taken over: the apply fails naming it and how to import it. E2B's API gives a volume no " +
			"mark of who made it, so a volume of the same name that someone else makes at the same moment as a lost " +
			"create cannot be told apart from the provider's.",
		Attributes: map[string]schema.Attribute{
			"id":        base.ComputedString("Same as `volume_id`.", stable),
			"volume_id": base.ComputedString("ID of the volume.", stable),
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the volume, unique in the team: letters, digits, `_` and `-`. Changing it replaces the volume.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				// E2B's whole rule: the pattern, no length limit (isValidVolumeName in e2b-dev/infra,
				// packages/api/internal/handlers/volume_create.go; NewVolume.name in E2B's OpenAPI spec).
				Validators: []validator.String{stringvalidator.RegexMatches(e2b.VolumeNamePattern,
					"may contain only letters, digits, '_' and '-'")},
			},
			"expose_token": schema.BoolAttribute{
				MarkdownDescription: "Store the volume's content token in `token`. Default `false`: the token never reaches the state.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "Token for E2B's volume-content API (read and write the volume's files without a " +
					"sandbox). Sensitive; null unless `expose_token` is `true`.",
				Computed:  true,
				Sensitive: true,
			},
		},
	}
}

func (r *volumeResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"volume_id": identityschema.StringAttribute{RequiredForImport: true, Description: "Volume ID."},
		},
	}
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan volumeModel
	client, ok := base.ModelAndClient(ctx, req.Plan.Get, &plan, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	v, err := client.CreateVolume(ctx, plan.Name.ValueString())
	if !volumeCreate.Settled(&resp.Diagnostics, "Could not create volume "+plan.Name.ValueString(), err) {
		return
	}
	plan.apply(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, volumeIdentity{VolumeID: plan.VolumeID})...)
}

func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state volumeModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	// An import names the volume by ID or by name; afterwards the ID is known.
	key := state.VolumeID.ValueString()
	if key == "" {
		key = state.ID.ValueString()
	}
	v, err := client.FindVolume(ctx, key)
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read volume "+key, err)
		return
	}
	if v == nil {
		base.RemoveGone(ctx, resp, "Volume no longer exists",
			fmt.Sprintf("Volume %q was not found; it was removed from state.", key),
			volumeIdentity{VolumeID: types.StringValue(key)})
		return
	}
	if state.ExposeToken.IsNull() {
		state.ExposeToken = types.BoolValue(false)
	}
	state.apply(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, volumeIdentity{VolumeID: state.VolumeID})...)
}

// Update only changes expose_token: the token is read again or dropped.
func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan volumeModel
	client, ok := base.ModelAndClient(ctx, req.Plan.Get, &plan, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	v, err := client.GetVolume(ctx, plan.VolumeID.ValueString())
	if err != nil {
		base.AddClientError(&resp.Diagnostics, "Could not read volume "+plan.VolumeID.ValueString(), err)
		return
	}
	plan.apply(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, volumeIdentity{VolumeID: plan.VolumeID})...)
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state volumeModel
	client, ok := base.ModelAndClient(ctx, req.State.Get, &state, r.Data, &resp.Diagnostics)
	if !ok {
		return
	}
	id := state.VolumeID.ValueString()
	err := client.DeleteVolume(ctx, id)
	switch {
	case err == nil, e2b.IsNotFound(err):
	case e2b.IsVolumeInUse(err):
		resp.Diagnostics.AddError("Volume "+state.Name.ValueString()+" is still mounted",
			"E2B refuses to delete a volume while running or paused sandboxes mount it. Destroy those sandboxes "+
				"(or remove the volume from their volume_mounts) first.\n\n"+err.Error())
	default:
		base.AddClientError(&resp.Diagnostics, "Could not delete volume "+id, err)
	}
}

// volumeCreate says how a volume is named and imported, for lost creates.
var volumeCreate = base.KeptCreate{Kind: "volume", Attr: path.Root("name"), ImportID: func(id string) string { return id }}

// ImportState accepts the volume's ID or its name, or the identity.
func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("volume_id"), req, resp)
}

func (m *volumeModel) apply(v *e2b.Volume) {
	m.ID = types.StringValue(v.VolumeID)
	m.VolumeID = types.StringValue(v.VolumeID)
	m.Name = types.StringValue(v.Name)
	if m.ExposeToken.ValueBool() && v.Token != "" {
		m.Token = types.StringValue(v.Token)
	} else {
		m.Token = types.StringNull()
	}
}

// ModifyPlan records a volume this run creates, for the sandboxes that mount it.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, _ *resource.ModifyPlanResponse) {
	base.NotePlannedName(ctx, r.Data, req, true)
}
