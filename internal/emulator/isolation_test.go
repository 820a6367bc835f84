package emulator

import (
	"strings"
	"testing"
)

// TestIsolationNoneFallback: without namespaces, HOME, TMPDIR and the default
// cwd are the sandbox's own directories and files still round-trip.
func TestIsolationNoneFallback(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{Isolation: "none"})
	if c.srv.isolate {
		t.Fatal("isolation none still isolates")
	}
	a, b := c.create(map[string]any{}), c.create(map[string]any{})
	st, data := c.upload(a, "f.txt", strings.NewReader("a-file"), nil)
	wantStatus(t, "upload", st, data, 200)
	home := homeDir(c.machine(a.SandboxID))
	out := c.mustRun(a, `echo "$HOME"; pwd; echo "$TMPDIR"; cat f.txt`)
	want := home + "\n" + home + "\n" + tmpDir(c.machine(a.SandboxID)) + "\na-file"
	if out != want {
		t.Fatalf("fallback sees %q, want %q", out, want)
	}
	cwd := c.startProcess(a, "pwd", map[string]any{"cwd": "/home/user"}, nil).collect()
	if cwd.stdout != home+"\n" {
		t.Fatalf("cwd /home/user ran in %q", cwd.stdout)
	}
	if res := c.run(b, "cat f.txt"); res.end["exitCode"] == nil {
		t.Fatal("sandbox b sees sandbox a's file")
	}
	if _, err := Start(Options{Isolation: "bogus"}); err == nil {
		t.Fatal("unknown isolation accepted")
	}
}
