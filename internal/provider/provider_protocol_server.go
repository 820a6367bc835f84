package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// ProtocolServer serves p over protocol 6: the framework's server, with write-only attributes in
// action configurations let through (see ValidateActionConfig below). main, the tests and the
// schema export all serve this one.
func ProtocolServer(p provider.Provider) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		full, ok := s.(frameworkServer)
		if !ok {
			return nil, fmt.Errorf("the framework's server (%T) no longer serves actions, list resources and state stores", s)
		}
		return actionWriteOnlyServer{full}, nil
	}
}

// frameworkServer is every RPC group the framework's server answers; embedding it forwards them all
// (the protocol server looks the optional groups up by type assertion).
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ActionServer
	tfprotov6.ListResourceServer
	tfprotov6.StateStoreServer
}

// actionWriteOnlyServer corrects one framework rule. Terraform (1.14+) accepts an ephemeral value in
// an action's configuration only in a write-only attribute, but terraform-plugin-framework v1.19.0
// validates action configurations as if the client could not handle write-only attributes
// (fwserver.ValidateActionConfig sets WriteOnlyAttributesAllowed to false) and refuses any value in
// them with "WriteOnly Attribute Not Allowed ... only supported in Terraform 1.11 and later". Only
// Terraform 1.14+ sends action RPCs, and it supports them, so that error is always wrong there.
type actionWriteOnlyServer struct{ frameworkServer }

// writeOnlyNotAllowedSummary is the summary of the framework's wrong error.
const writeOnlyNotAllowedSummary = "WriteOnly Attribute Not Allowed"

func (s actionWriteOnlyServer) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	resp, err := s.frameworkServer.ValidateActionConfig(ctx, req)
	if resp != nil {
		resp.Diagnostics = slices.DeleteFunc(resp.Diagnostics, func(d *tfprotov6.Diagnostic) bool {
			return d != nil && d.Summary == writeOnlyNotAllowedSummary
		})
	}
	return resp, err
}
