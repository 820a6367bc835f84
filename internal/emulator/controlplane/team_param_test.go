package controlplane_test

import (
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// The template lists take a deprecated teamID: with an API key it must name
// the key's own team, as on E2B.
func TestTemplateListsCheckTeamIDAgainstTheKey(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	for _, path := range []string{"/templates", "/v2/templates"} {
		st, data, _ := c.API("GET", path+"?teamID=11111111-1111-1111-1111-111111111111", nil)
		emulatortest.WantError(t, path+" with another team", st, data, http.StatusBadRequest, "Team ID param mismatch with the API key")
		st, data, _ = c.API("GET", path+"?teamID="+controlplane.TeamID, nil)
		emulatortest.WantStatus(t, path+" with the key's team", st, data, http.StatusOK)
		st, data, _ = c.API("GET", path, nil)
		emulatortest.WantStatus(t, path+" without teamID", st, data, http.StatusOK)
	}
}
