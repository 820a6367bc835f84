package controlplane_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Items: the create's 400s for network settings E2B refuses, in E2B's words.
func TestSandboxNetworkIngressRefusals(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	for _, tc := range []struct {
		network map[string]any
		secure  bool
		want    string
	}{
		{map[string]any{"maskRequestHost": "-https://abcd"}, false, "mask request host is not valid: -https://abcd"},
		{map[string]any{"maskRequestHost": "bücher.example"}, false, "mask request host 'bücher.example' is not ASCII. Please use ASCII characters only."},
		{map[string]any{"allowPublicTraffic": false}, false, "You cannot create a sandbox without public access unless you enable secure envd access via 'secure' flag."},
	} {
		st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "secure": tc.secure, "network": tc.network})
		emulatortest.WantStatus(t, fmt.Sprint(tc.network), st, data, http.StatusBadRequest)
		var e struct{ Message string }
		if err := json.Unmarshal(data, &e); err != nil || e.Message != tc.want {
			t.Fatalf("%v: %s, want %q", tc.network, data, tc.want)
		}
	}
	for _, ok := range []string{"localhost:${PORT}", "example.com", "example.com:8080"} {
		st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "network": map[string]any{"maskRequestHost": ok}})
		emulatortest.WantStatus(t, ok, st, data, http.StatusCreated)
	}
}
