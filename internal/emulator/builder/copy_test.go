package builder

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeArchive(t *testing.T, entries []tar.Header, bodies map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		h.Size = int64(len(bodies[h.Name]))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(bodies[h.Name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "context.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A build context lands inside the destination: files with their modes, links as links, and
// names that climb out are kept inside.
func TestExtractArchiveStaysInside(t *testing.T) {
	dst := t.TempDir()
	archive := writeArchive(t, []tar.Header{
		{Name: "app/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "app/run.sh", Typeflag: tar.TypeReg, Mode: 0o750},
		{Name: "app/current", Typeflag: tar.TypeSymlink, Linkname: "run.sh"},
		{Name: "../../escaped.txt", Typeflag: tar.TypeReg, Mode: 0o644},
	}, map[string]string{"app/run.sh": "#!/bin/sh\n", "../../escaped.txt": "kept inside"})
	if err := ExtractArchive(archive, dst); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "app", "run.sh")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Fatalf("run.sh: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dst, "app", "current")); err != nil || target != "run.sh" {
		t.Fatalf("link: %q %v", target, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "escaped.txt")); err != nil || string(b) != "kept inside" {
		t.Fatalf("a climbing name: %q %v", b, err)
	}
}

// An archive cannot write through a symbolic link it created itself.
func TestExtractArchiveRefusesWritingThroughItsOwnLink(t *testing.T) {
	dst, outside := t.TempDir(), t.TempDir()
	archive := writeArchive(t, []tar.Header{
		{Name: "out", Typeflag: tar.TypeSymlink, Linkname: outside},
		{Name: "out/planted.txt", Typeflag: tar.TypeReg, Mode: 0o644},
	}, map[string]string{"out/planted.txt": "x"})
	if err := ExtractArchive(archive, dst); err == nil || !strings.Contains(err.Error(), "goes through a symlink") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.txt")); err == nil {
		t.Fatal("the archive wrote outside the destination")
	}
}

// The step cache's keys: the same inputs give the same key, and the zero byte after each key
// keeps ("ab", "c") apart from ("a", "bc").
func TestHashKeys(t *testing.T) {
	step, cmd := "run", "echo hi"
	if a, b := HashKeys(step, cmd), HashKeys("run", "echo hi"); a != b {
		t.Fatal("not deterministic")
	}
	if HashKeys("ab", "c") == HashKeys("a", "bc") {
		t.Fatal("keys run into each other")
	}
	if HomeOf("root") != "/root" || HomeOf("user") != "/home/user" || HomeOf("builder") != "/home/user" {
		t.Fatal("HomeOf")
	}
}
