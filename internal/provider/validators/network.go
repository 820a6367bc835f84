package validators

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// HeaderNamesDistinct refuses a rule's headers map with two spellings of one header name
// (e2b.ValidateRuleHeaders checks each name alone, and only once allow_out is known).
type HeaderNamesDistinct struct{}

var _ validator.Map = HeaderNamesDistinct{}

func (HeaderNamesDistinct) Description(context.Context) string {
	return "header names must differ in more than case"
}

func (v HeaderNamesDistinct) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (HeaderNamesDistinct) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
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

// EgressProxyCredentials refuses an egress_proxy with a password (password_wo on e2b_sandbox,
// Password on the ephemeral sandbox) and no username, naming both attributes.
type EgressProxyCredentials struct {
	Password string // the password attribute's name
}

var _ validator.Object = EgressProxyCredentials{}

func (v EgressProxyCredentials) Description(context.Context) string {
	return v.Password + " needs username"
}

func (v EgressProxyCredentials) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v EgressProxyCredentials) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	username, _ := attrs["username"].(types.String)
	password, _ := attrs[v.Password].(types.String)
	if username.IsUnknown() || password.IsUnknown() {
		return // Checked again once both are known.
	}
	if err := e2b.ValidateEgressProxyCredentials(!username.IsNull(), !password.IsNull()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path.AtName(v.Password), "Egress proxy password without a username",
			fmt.Sprintf("%s.%s is set but %s.username is not: %s. Set username, or remove %s.",
				req.Path, v.Password, req.Path, err, v.Password))
	}
}

// NotEnvdPort refuses envd's port, saying why and what to do (int64validator.NoneOf would only
// say the value is not allowed).
type NotEnvdPort struct{}

var _ validator.Int64 = NotEnvdPort{}

func (NotEnvdPort) Description(context.Context) string {
	return fmt.Sprintf("must not be envd's port %d", e2b.ReservedHTTPSPort)
}

func (v NotEnvdPort) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (NotEnvdPort) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueInt64() != e2b.ReservedHTTPSPort {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, "envd's port in network.https_ports",
		fmt.Sprintf("Attribute %s is %d, the port of envd, which E2B always reaches in plain HTTP and refuses "+
			"in https_ports. Remove %d from network.https_ports.", req.Path, e2b.ReservedHTTPSPort, e2b.ReservedHTTPSPort))
}
