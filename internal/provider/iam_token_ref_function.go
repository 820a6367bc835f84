package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

var _ function.Function = &iamTokenRefFunction{}

// NewIAMTokenRefFunction returns the iam_token_ref provider function.
func NewIAMTokenRefFunction() function.Function { return &iamTokenRefFunction{} }

// iamTokenRefFunction builds the placeholder that E2B's egress fills with a workload token.
type iamTokenRefFunction struct{}

func (f *iamTokenRefFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "iam_token_ref"
}

func (f *iamTokenRefFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Placeholder that E2B replaces with a workload identity token",
		MarkdownDescription: "Returns `${e2b.identity.tokens.<name>}`, the placeholder that E2B's egress proxy replaces " +
			"with a freshly minted workload identity token when it forwards a request. Put it in a header of " +
			"`e2b_sandbox`'s `network.rules`, for a token the same sandbox declares in `iam` (checked at plan time), as " +
			"E2B's SDK does with a rule's `transform` callback. It makes no call; a name that `iam` cannot declare " +
			"(empty, or with `{`, `}` or control characters) is an error.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "name", MarkdownDescription: "Name of the token in the sandbox's `iam`."},
		},
		Return: function.StringReturn{},
	}
}

func (f *iamTokenRefFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var name string
	if resp.Error = req.Arguments.Get(ctx, &name); resp.Error != nil {
		return
	}
	if err := e2b.ValidateIAMTokenName(name); err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, e2b.IdentityRef(name))
}
