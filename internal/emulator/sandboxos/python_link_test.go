package sandboxos

import (
	"os"
	"path/filepath"
	"testing"
)

// E2B's base has python as well as python3: the host base skeleton links python to python3 where
// the host has only python3, and leaves a host's own python alone.
func TestHostBaseHasPython(t *testing.T) {
	t.Parallel()
	checked := false
	for _, d := range pythonDirs {
		if _, err := os.Stat(filepath.Join("/", d, "python3")); err != nil {
			continue
		}
		checked = true
		skel := t.TempDir()
		// A link an older skeleton left where the host has its own python must go.
		_, hostHasPython := os.Lstat(filepath.Join("/", d, "python"))
		if err := os.MkdirAll(filepath.Join(skel, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("python3", filepath.Join(skel, d, "python")); err != nil {
			t.Fatal(err)
		}
		if err := writePythonLink(skel); err != nil {
			t.Fatal(err)
		}
		target, err := os.Readlink(filepath.Join(skel, d, "python"))
		switch {
		case hostHasPython == nil && err == nil:
			t.Fatalf("/%s/python exists on the host, but the skeleton hides it with a link to %s", d, target)
		case hostHasPython != nil && (err != nil || target != "python3"):
			t.Fatalf("/%s has python3 only; the skeleton's python: %q %v, want a link to python3", d, target, err)
		}
	}
	if !checked {
		t.Skip("the host has no python3 in /usr/bin or /usr/local/bin: its sandboxes have no python at all")
	}
}
