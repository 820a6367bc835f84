package hostfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CopyTree keeps what a template's files are made of: modes, symbolic links as links, and the
// metadata and owner envd keeps in extended attributes (where the file system has them).
func TestCopyTreeKeepsModesLinksAndAttributes(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o750); err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(src, "bin", "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bin/tool", filepath.Join(src, "current")); err != nil {
		t.Fatal(err)
	}
	xattrs := true
	if err := WriteMetadata(tool, map[string]string{"team": "x"}); err != nil {
		if !XattrUnsupported(err) {
			t.Fatal(err)
		}
		xattrs = false
	} else if err := SetOwner(tool, RootOwner); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dst, "bin", "tool")
	if fi, err := os.Stat(copied); err != nil || fi.Mode().Perm() != 0o751 {
		t.Fatalf("tool: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dst, "current")); err != nil || target != "bin/tool" {
		t.Fatalf("link: %q %v", target, err)
	}
	if DirSize(dst) != int64(len("#!/bin/sh\n")) {
		t.Errorf("DirSize = %d", DirSize(dst))
	}
	if !xattrs {
		t.Log("this file system has no user extended attributes: metadata and owners not checked")
		return
	}
	if got := ReadMetadata(copied); got["team"] != "x" || Owner(copied) != RootOwner {
		t.Fatalf("metadata %v, owner %q", got, Owner(copied))
	}
	if Owner(src) != DefaultOwner {
		t.Fatalf("a file without the attribute belongs to %q", Owner(src))
	}
}

// envd's limits on an upload's metadata.
func TestValidateMetadata(t *testing.T) {
	if err := ValidateMetadata(map[string]string{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	if err := ValidateMetadata(map[string]string{"": "b"}); err == nil || !strings.Contains(err.Error(), "must not be empty") {
		t.Fatalf("empty key: %v", err)
	}
	if err := ValidateMetadata(map[string]string{"k": strings.Repeat("v", 1<<20)}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("too large: %v", err)
	}
}
