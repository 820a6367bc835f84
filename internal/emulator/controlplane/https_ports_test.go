package controlplane_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// network.httpsPorts is kept as created and shown in the sandbox's detail (not in the list,
// whose ListedSandbox has no network); the envd port is refused as E2B refuses it; the admin
// hook changes it as nothing in E2B's API can.
func TestHTTPSPortsKeptShownAndEnvdPortRefused(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"network": map[string]any{"httpsPorts": []int{8443, 3000}}})
	d := c.Detail(sb.SandboxID)
	if d.Network == nil || !slices.Equal(d.Network.HTTPSPorts, []uint32{8443, 3000}) {
		t.Fatalf("detail network %+v, want httpsPorts [8443 3000]", d.Network)
	}
	_, list, _ := c.API("GET", "/v2/sandboxes", nil)
	if strings.Contains(string(list), "httpsPorts") {
		t.Fatalf("the list shows httpsPorts, which ListedSandbox does not have: %s", list)
	}

	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base",
		"network": map[string]any{"httpsPorts": []int{443, 49983}}})
	emulatortest.WantStatus(t, "create with the envd port", st, data, http.StatusBadRequest)
	if !strings.Contains(string(data), "reserved port 49983") {
		t.Fatalf("refusal %s does not name the reserved port", data)
	}

	st, data, _ = c.Request("PUT", c.Srv.APIURL()+"/_emulator/sandboxes/"+sb.SandboxID+"/https-ports",
		map[string]any{"httpsPorts": []int{9443}}, nil)
	emulatortest.WantStatus(t, "admin https-ports", st, data, http.StatusNoContent)
	if d := c.Detail(sb.SandboxID); d.Network == nil || !slices.Equal(d.Network.HTTPSPorts, []uint32{9443}) {
		t.Fatalf("after the admin change: %+v", d.Network)
	}
	st, data, _ = c.Request("PUT", c.Srv.APIURL()+"/_emulator/sandboxes/inope/https-ports",
		map[string]any{"httpsPorts": []int{9443}}, nil)
	emulatortest.WantStatus(t, "admin https-ports of a missing sandbox", st, data, http.StatusNotFound)
}
