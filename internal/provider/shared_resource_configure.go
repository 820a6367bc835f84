package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// resourceConfig is what the resources of a team's objects (secrets, volumes,
// webhooks, snapshots, template tags) and of files (sandbox files and folders,
// volume files) embed: their type name and the provider's data.
type resourceConfig struct {
	typeName string // after the provider's name, such as "_secret"
	data     *ProviderData
}

// Each of them is configured, imported and has an identity; most also modify
// the plan, and the file resources validate their configuration.
var (
	_ = []interface {
		resource.ResourceWithConfigure
		resource.ResourceWithImportState
		resource.ResourceWithIdentity
	}{
		&secretResource{}, &volumeResource{}, &webhookResource{}, &snapshotResource{}, &templateTagResource{},
		&sandboxFileResource{}, &volumeFileResource{}, &sandboxFolderResource{},
	}
	_ = []resource.ResourceWithModifyPlan{
		&secretResource{}, &webhookResource{}, &snapshotResource{},
		&sandboxFileResource{}, &volumeFileResource{}, &sandboxFolderResource{},
	}
	_ = []resource.ResourceWithConfigValidators{&sandboxFileResource{}, &volumeFileResource{}}
)

func (r *resourceConfig) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

func (r *resourceConfig) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredProviderData(req.ProviderData, &resp.Diagnostics)
}
