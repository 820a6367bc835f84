package sandboxos_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// TestIsolationNoneFallback: without namespaces, HOME, TMPDIR and the default
// cwd are the sandbox's own directories and files still round-trip.
func TestIsolationNoneFallback(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Isolation: "none"})
	if c.Srv.Isolated() {
		t.Fatal("isolation none still isolates")
	}
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	st, data := c.Upload(a, "f.txt", strings.NewReader("a-file"), nil)
	emulatortest.WantStatus(t, "upload", st, data, 200)
	home := emulatortest.HomeDir(c.Machine(a.SandboxID))
	out := c.MustRun(a, `echo "$HOME"; pwd; echo "$TMPDIR"; cat f.txt`)
	want := home + "\n" + home + "\n" + emulatortest.TmpDir(c.Machine(a.SandboxID)) + "\na-file"
	if out != want {
		t.Fatalf("fallback sees %q, want %q", out, want)
	}
	cwd := c.StartProcess(a, "pwd", map[string]any{"cwd": "/home/user"}, nil).Collect()
	if cwd.Stdout != home+"\n" {
		t.Fatalf("cwd /home/user ran in %q", cwd.Stdout)
	}
	if res := c.Run(b, "cat f.txt"); res.End["exitCode"] == nil {
		t.Fatal("sandbox b sees sandbox a's file")
	}
	if _, err := emulator.Start(emulator.Options{Isolation: "bogus"}); err == nil {
		t.Fatal("unknown isolation accepted")
	}
}
