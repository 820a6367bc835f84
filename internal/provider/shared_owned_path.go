package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ownedPath is what names e2b_sandbox_file, e2b_sandbox_folder and
// e2b_volume_file: an owner (a sandbox or a volume) and a path in it. The
// pair is their identity and, as "<owner>:<path>", their import ID.
type ownedPath struct {
	owner, path         string // attribute names, such as "sandbox_id" and "path"
	ownerDesc, pathDesc string // their descriptions in the identity schema
	example             string // an import ID, for the error that shows the form
	// checkOwner and checkPath return "" for a valid value, or what is wrong
	// with it; a nil checkOwner accepts any owner.
	checkOwner func(string) string
	checkPath  []func(string) string
	id         func(owner, p string) string // the resource's id attribute
}

// ownedPathResource is what the resources named by an ownedPath embed: their
// config, and the identity schema and import that the ownedPath gives.
type ownedPathResource struct {
	resourceConfig
	named ownedPath
}

func (r *ownedPathResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.named.identitySchema()
}

func (r *ownedPathResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.named.importState(ctx, req, resp)
}

// identitySchema is the resource identity: the owner and the path, both
// required for an import by identity.
func (o ownedPath) identitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			o.owner: identityschema.StringAttribute{Description: o.ownerDesc, RequiredForImport: true},
			o.path:  identityschema.StringAttribute{Description: o.pathDesc, RequiredForImport: true},
		},
	}
}

// importState takes "<owner>:<path>" or the identity, checks both before any
// request (nothing is read for an ID that cannot name a file), and sets the
// owner, the path and the id.
func (o ownedPath) importState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var owner, p string
	if req.ID == "" {
		var ownerVal, pathVal types.String
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root(o.owner), &ownerVal)...)
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root(o.path), &pathVal)...)
		if resp.Diagnostics.HasError() {
			return
		}
		owner, p = ownerVal.ValueString(), pathVal.ValueString()
	} else {
		var ok bool
		owner, p, ok = strings.Cut(req.ID, ":")
		if !ok || owner == "" || p == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				fmt.Sprintf("Expected <%s>:<%s>, such as %q; got %q.", o.owner, o.path, o.example, req.ID))
			return
		}
	}
	if o.checkOwner != nil {
		if msg := o.checkOwner(owner); msg != "" {
			resp.Diagnostics.AddError("Invalid import ID", msg)
		}
	}
	for _, check := range o.checkPath {
		if msg := check(p); msg != "" {
			resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The %s %q %s.", o.path, p, msg))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(o.owner), owner)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(o.path), p)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), o.id(owner, p))...)
}
