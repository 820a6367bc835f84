package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var _ function.Function = &sandboxHostFunction{}

// NewSandboxHostFunction returns the sandbox_host provider function.
func NewSandboxHostFunction() function.Function { return &sandboxHostFunction{} }

// sandboxHostFunction computes the public host of a sandbox port, as the E2B
// SDKs' getHost does: "<port>-<sandbox_id>.<domain>".
type sandboxHostFunction struct{}

func (f *sandboxHostFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "sandbox_host"
}

func (f *sandboxHostFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Host name of a port of a sandbox",
		MarkdownDescription: "Returns the host name under which a port of a sandbox is reachable: " +
			"`<port>-<sandbox_id>.<domain>`, as the E2B SDKs' `getHost` computes it. Build URLs with it, " +
			"for example `\"https://${provider::e2b::sandbox_host(e2b_sandbox.web.id, 3000)}\"`. " +
			"The URL answers only while a process in the sandbox listens on that port, and only to " +
			"requests E2B lets through (see the sandbox's network settings). Functions cannot read the " +
			"provider configuration, so pass `domain` when you do not use the default `e2b.app`.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "sandbox_id",
				MarkdownDescription: "ID of the sandbox, e.g. `e2b_sandbox.example.id`.",
			},
			function.Int64Parameter{
				Name:                "port",
				MarkdownDescription: "TCP port inside the sandbox, 1 to 65535.",
			},
		},
		VariadicParameter: function.StringParameter{
			Name:                "domain",
			MarkdownDescription: "Optional E2B domain (at most one value). Defaults to `e2b.app`.",
		},
		Return: function.StringReturn{},
	}
}

func (f *sandboxHostFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var sandboxID string
	var port int64
	var domains []string
	resp.Error = req.Arguments.Get(ctx, &sandboxID, &port, &domains)
	if resp.Error != nil {
		return
	}
	host, argErr := sandboxHost(sandboxID, port, domains)
	if argErr != nil {
		resp.Error = argErr
		return
	}
	resp.Error = resp.Result.Set(ctx, host)
}

// sandboxHost validates the arguments and builds the host name.
func sandboxHost(sandboxID string, port int64, domains []string) (string, *function.FuncError) {
	if sandboxID == "" || strings.ContainsAny(sandboxID, "./: \t\n") {
		return "", function.NewArgumentFuncError(0, fmt.Sprintf(
			"sandbox_id %q is not a sandbox ID: it must be non-empty, without dots, slashes, colons or spaces", sandboxID))
	}
	if port < 1 || port > 65535 {
		return "", function.NewArgumentFuncError(1, fmt.Sprintf("port must be between 1 and 65535, got %d", port))
	}
	domain := e2b.DefaultDomain
	switch len(domains) {
	case 0:
	case 1:
		domain = strings.TrimSuffix(strings.TrimSpace(domains[0]), ".")
		if domain == "" || strings.ContainsAny(domain, "/: \t\n") {
			return "", function.NewArgumentFuncError(2, fmt.Sprintf(
				"domain %q is not a domain name such as \"e2b.app\" (no scheme, port or path)", domains[0]))
		}
	default:
		return "", function.NewArgumentFuncError(2, fmt.Sprintf("at most one domain may be given, got %d", len(domains)))
	}
	return fmt.Sprintf("%d-%s.%s", port, sandboxID, domain), nil
}
