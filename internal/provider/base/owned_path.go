package base

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// OwnedPath is what names e2b_sandbox_file, e2b_sandbox_folder and
// e2b_volume_file: an owner (a sandbox or a volume) and a path in it. The
// pair is their identity and, as "<owner>:<path>", their import ID.
type OwnedPath struct {
	Owner, Path         string // attribute names, such as "sandbox_id" and "path"
	OwnerDesc, PathDesc string // their descriptions in the identity schema
	Example             string // an import ID, for the error that shows the form
	// checkOwner and checkPath return "" for a valid value, or what is wrong
	// with it; a nil checkOwner accepts any owner.
	CheckOwner func(string) string
	CheckPath  []func(string) string
	ID         func(owner, p string) string // the resource's id attribute
}

// OwnedPathResource is what the resources named by an ownedPath embed: their
// config, and the identity schema and import that the ownedPath gives.
type OwnedPathResource struct {
	ResourceConfig
	Named OwnedPath
}

func (r *OwnedPathResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.Named.identitySchema()
}

func (r *OwnedPathResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.Named.importState(ctx, req, resp)
}

// identitySchema is the resource identity: the owner and the path, both
// required for an import by identity.
func (o OwnedPath) identitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			o.Owner: identityschema.StringAttribute{Description: o.OwnerDesc, RequiredForImport: true},
			o.Path:  identityschema.StringAttribute{Description: o.PathDesc, RequiredForImport: true},
		},
	}
}

// importState takes "<owner>:<path>" or the identity, checks both before any
// request (nothing is read for an ID that cannot name a file), and sets the
// owner, the path and the id.
func (o OwnedPath) importState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var owner, p string
	if req.ID == "" {
		var ownerVal, pathVal types.String
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root(o.Owner), &ownerVal)...)
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root(o.Path), &pathVal)...)
		if resp.Diagnostics.HasError() {
			return
		}
		owner, p = ownerVal.ValueString(), pathVal.ValueString()
	} else {
		var ok bool
		owner, p, ok = strings.Cut(req.ID, ":")
		if !ok || owner == "" || p == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				fmt.Sprintf("Expected <%s>:<%s>, such as %q; got %q.", o.Owner, o.Path, o.Example, req.ID))
			return
		}
	}
	if o.CheckOwner != nil {
		if msg := o.CheckOwner(owner); msg != "" {
			resp.Diagnostics.AddError("Invalid import ID", msg)
		}
	}
	for _, check := range o.CheckPath {
		if msg := check(p); msg != "" {
			resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The %s %q %s.", o.Path, p, msg))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(o.Owner), owner)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(o.Path), p)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), o.ID(owner, p))...)
}
