package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// teamObjectResource is what the resources of a team's objects (secrets,
// volumes, webhooks, snapshots, template tags) embed: their type name and the
// provider's data.
type teamObjectResource struct {
	typeName string // after the provider's name, such as "_secret"
	data     *ProviderData
}

// Each team object is configured, imported and has an identity; some also
// modify the plan.
var (
	_ = []interface {
		resource.ResourceWithConfigure
		resource.ResourceWithImportState
		resource.ResourceWithIdentity
	}{&secretResource{}, &volumeResource{}, &webhookResource{}, &snapshotResource{}, &templateTagResource{}}
	_ = []resource.ResourceWithModifyPlan{&secretResource{}, &webhookResource{}, &snapshotResource{}}
)

func (r *teamObjectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

func (r *teamObjectResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
