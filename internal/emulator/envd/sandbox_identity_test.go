package envd_test

import (
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// TestSandboxIdentity ports E2B's SDK test "default env vars": commands see
// E2B_SANDBOX=true and the sandbox's ID (also E2B_TEMPLATE_ID and
// E2B_TEAM_ID, which envd sets with it), and the same values in
// /run/e2b/.<NAME>, read by commands with a private root and by the files
// API in either layout; a sandbox started from a snapshot has its own ID.
func TestSandboxIdentity(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	want := sb.SandboxID + " true " + sb.TemplateID + " " + controlplane.TeamID + "\n"
	if got := c.MustRun(sb, `echo "$E2B_SANDBOX_ID $E2B_SANDBOX $E2B_TEMPLATE_ID $E2B_TEAM_ID"`); got != want {
		t.Fatalf("env: %q, want %q", got, want)
	}
	for name, value := range map[string]string{"E2B_SANDBOX": "true", "E2B_SANDBOX_ID": sb.SandboxID, "E2B_TEMPLATE_ID": sb.TemplateID, "E2B_TEAM_ID": controlplane.TeamID} {
		st, data := c.Download(sb, "/run/e2b/."+name)
		emulatortest.WantStatus(t, "read ."+name, st, data, http.StatusOK)
		if string(data) != value {
			t.Fatalf(".%s holds %q, want %q", name, data, value)
		}
	}
	if !c.Srv.PrivateRoots() {
		t.Log("private root filesystems unavailable: commands read the host's /run, so the files are checked through the files API only")
		return
	}
	if got := c.MustRun(sb, "cat /run/e2b/.E2B_SANDBOX; echo; cat /run/e2b/.E2B_SANDBOX_ID"); got != "true\n"+sb.SandboxID {
		t.Fatalf("files seen by a command: %q", got)
	}
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{})
	emulatortest.WantStatus(t, "snapshot", st, data, http.StatusCreated)
	snap := emulatortest.Decode[map[string]any](t, data)
	from := c.Create(map[string]any{"templateID": snap["snapshotID"]})
	if got := c.MustRun(from, "cat /run/e2b/.E2B_SANDBOX_ID; echo \" $E2B_SANDBOX_ID\""); got != from.SandboxID+" "+from.SandboxID+"\n" {
		t.Fatalf("sandbox from a snapshot sees %q, want its own ID %s", got, from.SandboxID)
	}
}
