package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// sandboxFilterModel is how the e2b_sandboxes data source and the e2b_sandbox list resource
// select sandboxes: the same attributes, names and rules on both; their models embed it.
type sandboxFilterModel struct {
	States       types.List        `tfsdk:"states"`
	Metadata     types.Map         `tfsdk:"metadata"`
	Template     types.String      `tfsdk:"template"`
	StartedAfter timetypes.RFC3339 `tfsdk:"started_after"`
}

// sandboxFilterAttributes are the filter's attributes, the one definition of them: the
// e2b_sandboxes data source adds them to its schema and the list resource converts them
// (base.ListConfigAttributes).
func sandboxFilterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"states": schema.ListAttribute{MarkdownDescription: "Only sandboxes in these states: `running`, `paused`. Default: both.",
			Optional: true, ElementType: types.StringType, Validators: sandboxStatesValidators()},
		"metadata": schema.MapAttribute{MarkdownDescription: "Only sandboxes whose metadata has all these key/value pairs.",
			Optional: true, ElementType: types.StringType},
		"template": schema.StringAttribute{MarkdownDescription: "Only sandboxes started from this template (ID or name, without `:tag`).",
			Optional: true, Validators: validators.TemplateFilter()},
		"started_after": schema.StringAttribute{MarkdownDescription: "Only sandboxes started at or after this time " +
			"(RFC 3339, e.g. `2026-01-02T15:04:05Z`).", Optional: true, CustomType: timetypes.RFC3339Type{}},
	}
}

// sandboxStatesValidators accept E2B's sandbox states, each at most once. It is a list because
// list resource configurations have no sets.
func sandboxStatesValidators() []validator.List {
	return []validator.List{
		listvalidator.SizeAtLeast(1),
		listvalidator.UniqueValues(),
		listvalidator.ValueStringsAre(stringvalidator.OneOf(e2b.SandboxStates()...)),
	}
}

// params converts the filter; no states means every state.
func (f sandboxFilterModel) params(ctx context.Context) (e2b.ListSandboxesParams, diag.Diagnostics) {
	p := e2b.ListSandboxesParams{Template: f.Template.ValueString(), StartedAfter: convert.OptionalTime(f.StartedAfter)}
	var diags diag.Diagnostics
	if !f.States.IsNull() && !f.States.IsUnknown() {
		diags.Append(f.States.ElementsAs(ctx, &p.States, false)...)
	}
	if len(p.States) == 0 {
		p.States = e2b.SandboxStates()
	}
	meta, d := convert.StringMapFrom(ctx, f.Metadata)
	diags.Append(d...)
	if len(meta) > 0 {
		p.Metadata = meta
	}
	return p, diags
}
