package sandboxos_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Code in a sandbox is hostile: these tests take its side against the host
// it runs on, the emulator and the other sandboxes.

// TestSandboxCannotDriveTheAdminAPI: sandboxes share the host's network, so
// a sandbox finds the emulator's port (in /proc/net/tcp, or as here in its
// own envd URL); without the admin token, which it cannot read, it cannot
// expire another sandbox or install faults.
func TestSandboxCannotDriveTheAdminAPI(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the sandbox's probe needs curl on the host, which sandboxes share")
	}
	c := emulatortest.Start(t, emulator.Options{})
	attacker, victim := c.Create(map[string]any{}), c.Create(map[string]any{})
	base := c.Srv.APIURL() + "/_emulator"
	probe := `curl -s -o /dev/null -w '%{http_code} ' -X POST -H 'Content-Type: application/json' -d '{}' ` + base + `/sandboxes/` + victim.SandboxID + `/expire; ` +
		`curl -s -o /dev/null -w '%{http_code} ' -X PUT -H 'Content-Type: application/json' -d '{"errorRate":1}' ` + base + `/faults; ` +
		`curl -s -o /dev/null -w '%{http_code}' ` + base + `/counters`
	if got := c.MustRun(attacker, probe); got != "401 401 401" {
		t.Fatalf("the admin API answered a sandbox: %q, want 401 401 401", got)
	}
	if st, data, _ := c.API("GET", "/sandboxes/"+victim.SandboxID, nil); st != 200 {
		t.Fatalf("the victim is gone after the sandbox's admin calls: %d %s", st, data)
	}
	if strings.Contains(c.MustRun(attacker, "env"), c.Srv.AdminToken()) {
		t.Fatal("the admin token is in a sandbox's environment")
	}
}
