package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// resourceConfig is what every resource embeds: its type name and the
// provider's data.
type resourceConfig struct {
	typeName string // after the provider's name, such as "_secret"
	data     *ProviderData
}

// All but the command resource are imported and have an identity; most also
// modify the plan, and several validate their configuration.
var (
	_ = []interface {
		resource.ResourceWithConfigure
		resource.ResourceWithImportState
		resource.ResourceWithIdentity
	}{
		&sandboxResource{}, &templateResource{},
		&secretResource{}, &volumeResource{}, &webhookResource{}, &snapshotResource{}, &templateTagResource{},
		&sandboxFileResource{}, &volumeFileResource{}, &sandboxFolderResource{},
	}
	_ = []resource.ResourceWithModifyPlan{
		&sandboxResource{}, &templateResource{},
		&secretResource{}, &webhookResource{}, &snapshotResource{},
		&sandboxFileResource{}, &volumeFileResource{}, &sandboxFolderResource{},
	}
	_ = []resource.ResourceWithValidateConfig{&sandboxResource{}, &templateResource{}}
	_ = []resource.ResourceWithConfigValidators{&sandboxFileResource{}, &volumeFileResource{}, &sandboxCommandResource{}}
)

func (r *resourceConfig) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

func (r *resourceConfig) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
