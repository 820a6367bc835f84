package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteTree creates files (slash path -> content) under dir, with their folders. A file is
// 0644, or 0755 where its path ends in "*" (the "*" is not part of the name); the mode is set
// past the umask, so a tree hashes and uploads alike on every machine.
func WriteTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			tb.Fatal(err)
		}
	}
}
