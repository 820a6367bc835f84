package base

import (
	"context"

	ephemeraltimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/ephemeral/timeouts"
	resourcetimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	ephemeralschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// ResourceTimeoutsBlock is the timeouts library's block with the provider's duration error.
func ResourceTimeoutsBlock(ctx context.Context, opts resourcetimeouts.Opts) resourceschema.Block {
	b, ok := resourcetimeouts.Block(ctx, opts).(resourceschema.SingleNestedBlock)
	if !ok {
		return resourcetimeouts.Block(ctx, opts)
	}
	for name, a := range b.Attributes {
		if sa, ok := a.(resourceschema.StringAttribute); ok {
			sa.Validators = []validator.String{validators.GoDurationSyntax()}
			b.Attributes[name] = sa
		}
	}
	return b
}

// EphemeralTimeoutsBlock is resourceTimeoutsBlock for an ephemeral resource.
func EphemeralTimeoutsBlock(ctx context.Context) ephemeralschema.Block {
	b, ok := ephemeraltimeouts.Block(ctx).(ephemeralschema.SingleNestedBlock)
	if !ok {
		return ephemeraltimeouts.Block(ctx)
	}
	for name, a := range b.Attributes {
		if sa, ok := a.(ephemeralschema.StringAttribute); ok {
			sa.Validators = []validator.String{validators.GoDurationSyntax()}
			b.Attributes[name] = sa
		}
	}
	return b
}
