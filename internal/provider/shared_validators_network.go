package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// headerNamesDistinct refuses a rule's headers map with two spellings of one header name
// (e2b.ValidateRuleHeaders checks each name alone, and only once allow_out is known).
type headerNamesDistinct struct{}

var _ validator.Map = headerNamesDistinct{}

func (headerNamesDistinct) Description(context.Context) string {
	return "header names must differ in more than case"
}

func (v headerNamesDistinct) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (headerNamesDistinct) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	names := make([]string, 0, len(req.ConfigValue.Elements()))
	for name := range req.ConfigValue.Elements() {
		names = append(names, name)
	}
	if err := e2b.ValidateRuleHeaderNames(names); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Duplicate network rule header",
			fmt.Sprintf("%s: %s.", req.Path, err))
	}
}

// egressProxyCredentials refuses an egress_proxy with a password (password_wo on e2b_sandbox,
// password on the ephemeral sandbox) and no username, naming both attributes.
type egressProxyCredentials struct {
	password string // the password attribute's name
}

var _ validator.Object = egressProxyCredentials{}

func (v egressProxyCredentials) Description(context.Context) string {
	return v.password + " needs username"
}

func (v egressProxyCredentials) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v egressProxyCredentials) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	username, _ := attrs["username"].(types.String)
	password, _ := attrs[v.password].(types.String)
	if username.IsUnknown() || password.IsUnknown() {
		return // Checked again once both are known.
	}
	if err := e2b.ValidateEgressProxyCredentials(!username.IsNull(), !password.IsNull()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path.AtName(v.password), "Egress proxy password without a username",
			fmt.Sprintf("%s.%s is set but %s.username is not: %s. Set username, or remove %s.",
				req.Path, v.password, req.Path, err, v.password))
	}
}
