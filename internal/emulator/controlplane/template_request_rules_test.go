package controlplane_test

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// What E2B's handlers check of a template build beyond the schema: a name another template has
// is 409; minFreeDiskMb above the allowance (the emulator's: its data dir's free space) is 400
// at the request; a build starts from exactly one of fromImage and fromTemplate (400).
func TestTemplateRequestAndStartRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := emulatortest.Start(t, emulator.Options{DataDir: dir})
	free := hostfs.FreeMiB(dir)
	if free < 0 {
		t.Skip("the free space of the data dir cannot be read on this OS, so minFreeDiskMb is not enforced")
	}

	for _, name := range []string{"base", store.BaseTemplateID} {
		st, data, _ := c.API("POST", "/v3/templates", map[string]any{"name": name})
		emulatortest.WantStatus(t, "request named "+name, st, data, http.StatusConflict)
		if !strings.Contains(string(data), "Alias '"+name+"' is already used") {
			t.Fatalf("409 for %s says %s", name, data)
		}
	}

	st, data, _ := c.API("POST", "/v3/templates", map[string]any{"name": "roomy", "minFreeDiskMb": math.MaxInt32}) // far above any disk
	emulatortest.WantStatus(t, "minFreeDiskMb above the free space", st, data, http.StatusBadRequest)
	if !strings.Contains(string(data), "Free disk space can't be higher than") {
		t.Fatalf("400 says %s", data)
	}
	for _, mb := range []int64{0, 1} {
		st, data, _ = c.API("POST", "/v3/templates", map[string]any{"name": "roomy", "minFreeDiskMb": mb})
		emulatortest.WantStatus(t, "minFreeDiskMb within the free space", st, data, http.StatusAccepted)
	}

	for body, want := range map[string]map[string]any{
		"must specify either fromImage or fromTemplate":  {"steps": []any{}},
		"cannot specify both fromImage and fromTemplate": {"fromImage": "ubuntu:22.04", "fromTemplate": "base"},
	} {
		b := c.RequestBuild(map[string]any{"name": "sourced"})
		st, data, _ = c.API("POST", "/v2/templates/"+b.TemplateID+"/builds/"+b.BuildID, want)
		emulatortest.WantStatus(t, body, st, data, http.StatusBadRequest)
		if !strings.Contains(string(data), body) {
			t.Fatalf("400 says %s, want %q", data, body)
		}
	}
}
