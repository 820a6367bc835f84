package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// network.https_ports of e2b_sandbox and the ephemeral e2b_sandbox: the sandbox's ports that
// serve HTTPS, which E2B's proxy then reaches over TLS.
var descHTTPSPorts = fmt.Sprintf("Ports of the sandbox whose servers speak HTTPS rather than plain HTTP: E2B's proxy "+
	"reaches them over TLS, without verifying the certificate (a self-signed one works). The public URL "+
	"(`https://<port>-<sandbox id>.<domain>`) is HTTPS either way. %d to %d, at most %d ports; envd's port %d cannot "+
	"be listed. Default none.", e2b.MinPort, e2b.MaxPort, e2b.MaxHTTPSPorts, e2b.ReservedHTTPSPort)

func httpsPortsValidators() []validator.Set {
	return []validator.Set{
		setvalidator.SizeAtMost(e2b.MaxHTTPSPorts),
		setvalidator.ValueInt64sAre(int64validator.Between(e2b.MinPort, e2b.MaxPort), validators.NotEnvdPort{}),
	}
}

// httpsPortsFrom reads https_ports in ascending order; null or unknown gives nil.
func httpsPortsFrom(ctx context.Context, s types.Set) ([]int, diag.Diagnostics) {
	if s.IsNull() || s.IsUnknown() {
		return nil, nil
	}
	var ports []int64
	diags := s.ElementsAs(ctx, &ports, false)
	out := make([]int, 0, len(ports))
	for _, p := range ports {
		out = append(out, int(p))
	}
	slices.Sort(out)
	return out, diags
}

// httpsPortsValue converts ports read from E2B; none gives null (E2B's default).
func httpsPortsValue(ports []int) types.Set {
	if len(ports) == 0 {
		return types.SetNull(types.Int64Type)
	}
	elems := make([]attr.Value, 0, len(ports))
	for _, p := range ports {
		elems = append(elems, types.Int64Value(int64(p)))
	}
	return types.SetValueMust(types.Int64Type, elems)
}
