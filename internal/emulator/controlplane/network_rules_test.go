package controlplane_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Network rules and an egress proxy are stored at create, returned by GET without the proxy's
// password, refused beyond E2B's limits, and replaced as a whole by PUT .../network: a field
// the update leaves out is cleared.
func TestNetworkRulesAndEgressProxyStoredAndReplaced(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"network": map[string]any{
		"allowOut": []string{"api.example.com"}, "denyOut": []string{"0.0.0.0/0"},
		"rules": map[string]any{"API.example.com": []any{map[string]any{"transform": map[string]any{
			"headers": map[string]string{"Authorization": "Bearer ${e2b.secrets.key}"}}}}},
		"egressProxy": map[string]any{"address": "proxy.example.com:1080", "username": "u", "password": "hidden-pw"},
	}})
	_, body, _ := c.API("GET", "/sandboxes/"+sb.SandboxID, nil)
	got := string(body)
	for _, want := range []string{`"api.example.com":[{"transform":{"headers":{"Authorization":"Bearer ${e2b.secrets.key}"}}}]`,
		`"egressProxy":{"address":"proxy.example.com:1080","username":"u"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("GET lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hidden-pw") {
		t.Errorf("GET returns the proxy password:\n%s", got)
	}

	st, _, _ := c.API("PUT", "/sandboxes/"+sb.SandboxID+"/network", map[string]any{"allowOut": []string{"1.1.1.1"}, "denyOut": []string{"0.0.0.0/0"}})
	if st != http.StatusNoContent {
		t.Fatalf("PUT network: %d", st)
	}
	if n := c.Detail(sb.SandboxID).Network; n == nil || len(n.Rules) != 0 || n.EgressProxy != nil {
		t.Fatalf("after a PUT without rules and proxy the sandbox keeps %+v", n)
	}

	for _, bad := range []map[string]any{
		{"rules": map[string]any{"*": []any{map[string]any{}}}},
		{"rules": map[string]any{"a.example.com": []any{map[string]any{}, map[string]any{}}}},
		{"egressProxy": map[string]any{"address": "no-port"}},
	} {
		if st, body, _ := c.API("PUT", "/sandboxes/"+sb.SandboxID+"/network", bad); st != http.StatusBadRequest {
			t.Errorf("PUT %v: %d %s, want 400", bad, st, body)
		}
	}
}
