package controlplane_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestSecretsCRUDNeverReturnValues(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/secrets", map[string]any{"name": "Api-Key", "value": "v1-hidden", "metadata": map[string]string{"team": "x"}})
	emulatortest.WantStatus(t, "create", st, data, http.StatusCreated)
	sc := emulatortest.Decode[controlplane.SecretJSON](t, data)
	if sc.Name != "api-key" || sc.CurrentVersion != 1 || !strings.HasPrefix(sc.SecretID, "sec_") || sc.Metadata["team"] != "x" {
		t.Fatalf("created %+v", sc)
	}
	for _, bad := range []map[string]any{
		{"name": "api-key", "value": "x"},
		{"name": "sec_x", "value": "x"},
		{"name": "bad name", "value": "x"},
		{"name": "novalue"},
		{"name": "empty", "value": ""},
	} {
		if st, data, _ := c.API("POST", "/secrets", bad); st != http.StatusBadRequest && st != http.StatusConflict {
			t.Errorf("create %v: %d %s", bad, st, data)
		}
	}
	st, data, _ = c.API("POST", "/secrets/api-key", map[string]any{"value": "v2-hidden"})
	emulatortest.WantStatus(t, "update by name", st, data, http.StatusOK)
	if got := emulatortest.Decode[controlplane.SecretJSON](t, data); got.CurrentVersion != 2 || got.Metadata["team"] != "x" {
		t.Fatalf("updated %+v", got)
	}
	for _, path := range []string{"/secrets", "/secrets/" + sc.SecretID, "/secrets/api-key"} {
		st, data, _ := c.API("GET", path, nil)
		emulatortest.WantStatus(t, path, st, data, http.StatusOK)
		if strings.Contains(string(data), "hidden") {
			t.Fatalf("%s returned a value: %s", path, data)
		}
	}
	st, data, _ = c.API("DELETE", "/secrets/"+sc.SecretID, nil)
	emulatortest.WantStatus(t, "delete", st, data, http.StatusNoContent)
	st, data, _ = c.API("GET", "/secrets/api-key", nil)
	emulatortest.WantStatus(t, "get deleted", st, data, http.StatusNotFound)
}
