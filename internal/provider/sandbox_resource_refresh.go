package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// applyReportedInputs reads back, on every refresh, the inputs GET /sandboxes/{id} reports
// beyond the lifecycle, internet access and metadata (applyDetail): network, secure and
// volume_mounts. A change made outside Terraform (E2B's update-network API) then shows in the
// plan. A value that means what the state's means keeps the state's spelling, so a refresh alone
// never plans a change.
func (m *sandboxResourceModel) applyReportedInputs(ctx context.Context, d *e2b.SandboxDetail) {
	if !m.ForkFrom.IsNull() {
		return // A fork's network and mounts are its source's and stay null (see fork_from).
	}
	m.Network = reportedNetwork(ctx, m.Network, d.Network, d.AllowInternetAccess)
	if d.State == e2b.SandboxStateRunning && !m.Secure.IsNull() {
		// E2B returns envdAccessToken exactly when the sandbox is secure; a paused sandbox's
		// answer is not relied on.
		m.Secure = types.BoolValue(d.EnvdAccessToken != "")
	}
	if d.VolumeMounts != nil || !m.VolumeMounts.IsNull() {
		prior := m.VolumeMounts
		m.applyCreateOptionsDetail(d)
		if prior.Equal(m.VolumeMounts) {
			m.VolumeMounts = prior
		}
	}
}

// reportedNetwork is the network E2B reports, or known when it means the same. The proxy's
// password_wo_version is the state's: E2B knows nothing of it (nor returns the password).
func reportedNetwork(ctx context.Context, known types.Object, n *e2b.NetworkConfig, allowInternet *bool) types.Object {
	if known.IsUnknown() {
		return known
	}
	version := proxyPasswordVersion(ctx, known)
	read := importedNetwork(withoutInternetDenial(n, allowInternet), version)
	for _, v := range []types.Object{read, importedNetwork(n, version)} {
		if !networkEgressChanged(ctx, known, v) && sameIngress(ctx, known, v) {
			return known
		}
	}
	return read
}

// withoutInternetDenial is n without the "0.0.0.0/0" that E2B adds to denyOut for
// allow_internet_access = false, which allow_internet_access already stands for.
func withoutInternetDenial(n *e2b.NetworkConfig, allowInternet *bool) *e2b.NetworkConfig {
	if n == nil || allowInternet == nil || *allowInternet || !slices.Contains(n.DenyOut, "0.0.0.0/0") {
		return n
	}
	c := *n
	c.DenyOut = slices.DeleteFunc(slices.Clone(n.DenyOut), func(s string) bool { return s == "0.0.0.0/0" })
	return &c
}

// proxyPasswordVersion is egress_proxy.password_wo_version of a network value; null when none.
func proxyPasswordVersion(ctx context.Context, network types.Object) types.Int64 {
	if network.IsNull() || network.IsUnknown() {
		return types.Int64Null()
	}
	var n sandboxNetworkModel
	if d := network.As(ctx, &n, basetypes.ObjectAsOptions{}); d.HasError() || n.EgressProxy.IsNull() || n.EgressProxy.IsUnknown() {
		return types.Int64Null()
	}
	if v, ok := n.EgressProxy.Attributes()["password_wo_version"].(types.Int64); ok {
		return v
	}
	return types.Int64Null()
}

// sameIngress tells whether two network values give the same allow_public_traffic,
// mask_request_host and https_ports (null counts as E2B's defaults: public, no mask, no ports).
func sameIngress(ctx context.Context, a, b types.Object) bool {
	ai, _ := ingressOf(ctx, a)
	bi, _ := ingressOf(ctx, b)
	return ai.equal(bi)
}

// ingress is what of network E2B sets at create only: changing it replaces the sandbox.
type ingress struct {
	public bool
	mask   string
	ports  []int
}

func (i ingress) equal(o ingress) bool {
	return i.public == o.public && i.mask == o.mask && slices.Equal(i.ports, o.ports)
}

// ingressOf reads the ingress settings of a network value; known is false while any is unknown.
// Null counts as E2B's defaults.
func ingressOf(ctx context.Context, o types.Object) (in ingress, known bool) {
	in.public = true
	if o.IsNull() {
		return in, true
	}
	if o.IsUnknown() {
		return in, false
	}
	var n sandboxNetworkModel
	if d := o.As(ctx, &n, basetypes.ObjectAsOptions{}); d.HasError() {
		return in, true
	}
	if n.AllowPublicTraffic.IsUnknown() || n.MaskRequestHost.IsUnknown() || !convert.FullyKnown(ctx, n.HTTPSPorts) {
		return in, false
	}
	in.public = n.AllowPublicTraffic.IsNull() || n.AllowPublicTraffic.ValueBool()
	in.mask = n.MaskRequestHost.ValueString()
	in.ports, _ = httpsPortsFrom(ctx, n.HTTPSPorts)
	if len(in.ports) == 0 {
		in.ports = nil
	}
	return in, true
}
