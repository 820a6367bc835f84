package base

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// plannedNames are the templates and volumes that this run plans to create, by provider
// configuration: a sandbox that names one (template = e2b_template.app.name) plans after it,
// since Terraform plans a resource after those it references, so the plan-time look-up
// (checkReferencesAtPlan) counts them as existing rather than refusing what the apply makes.
type plannedNames struct {
	mu        sync.Mutex
	Templates map[string]bool
	Volumes   map[string]bool
}

var plannedByProvider sync.Map // *ProviderData → *plannedNames

func PlannedFor(d *ProviderData) *plannedNames {
	p, _ := plannedByProvider.LoadOrStore(d, &plannedNames{Templates: map[string]bool{}, Volumes: map[string]bool{}})
	return p.(*plannedNames)
}

func (p *plannedNames) add(kind map[string]bool, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kind[name] = true
}

func (p *plannedNames) Has(kind map[string]bool, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return kind[name]
}

// NotePlannedName records the name a resource plans to create or rename to (attr "name").
func NotePlannedName(ctx context.Context, d *ProviderData, req resource.ModifyPlanRequest, volume bool) {
	if d == nil || req.Plan.Raw.IsNull() {
		return
	}
	var name, prior types.String
	if req.Plan.GetAttribute(ctx, path.Root("name"), &name).HasError() || name.IsNull() || name.IsUnknown() {
		return
	}
	if !req.State.Raw.IsNull() && !req.State.GetAttribute(ctx, path.Root("name"), &prior).HasError() && prior.Equal(name) {
		return
	}
	p := PlannedFor(d)
	if volume {
		p.add(p.Volumes, name.ValueString())
	} else {
		p.add(p.Templates, name.ValueString())
	}
}
