package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var _ function.Function = &secretRefFunction{}

// NewSecretRefFunction returns the secret_ref provider function.
func NewSecretRefFunction() function.Function { return &secretRefFunction{} }

// secretRefFunction builds the placeholder that E2B's egress replaces with a
// secret's value, so configurations never spell it by hand.
type secretRefFunction struct{}

func (f *secretRefFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "secret_ref"
}

func (f *secretRefFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Placeholder that E2B replaces with a secret's value",
		MarkdownDescription: "Returns `${e2b.secrets.<name>}`, the placeholder that E2B's egress proxy replaces with the " +
			"secret's current value (a rotated secret reaches later requests without touching the sandbox). Put it in a " +
			"header of `e2b_sandbox`'s `network.rules`: E2B then sets that header on the sandbox's requests to the rule's " +
			"domain, so the value never enters the sandbox, as E2B's SDK does with `Secret.fill`. It makes no call and " +
			"does not check that the secret exists (E2B fails the request when it does not); a string that cannot be a " +
			"secret name is an error.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "name", MarkdownDescription: "Name of the secret, e.g. `e2b_secret.api.name`."},
		},
		Return: function.StringReturn{},
	}
}

func (f *secretRefFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	if resp.Error = req.Arguments.Get(ctx, &name); resp.Error != nil {
		return
	}
	// A placeholder for a name no secret can have is never filled: the
	// upstream would get it as it is.
	if !e2b.SecretNamePattern.MatchString(name) {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf(
			"%q cannot be a secret name: use 1 to 128 letters, digits, '_' or '-' (the secret's name or ID)", name))
		return
	}
	resp.Error = resp.Result.Set(ctx, e2b.SecretRef(name))
}
