package buildcontext

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// archiveEntry is what matters in an archive entry for E2B's build: the
// name, the type, the permissions, the link target and the content.
type archiveEntry struct {
	Name, Link string
	Type       byte
	Mode       int64
	Size       int64
	Sum        string
}

func readArchive(t *testing.T, r io.Reader) []archiveEntry {
	t.Helper()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	tr := tar.NewReader(zr)
	var out []archiveEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("tar: %v", err)
		}
		sum := sha256.New()
		if _, err := io.Copy(sum, tr); err != nil {
			t.Fatal(err)
		}
		typ := h.Typeflag
		if typ == '\x00' { // pre-POSIX regular file
			typ = tar.TypeReg
		}
		out = append(out, archiveEntry{Name: h.Name, Link: h.Linkname, Type: typ, Mode: h.Mode & 0o7777, Size: h.Size, Sum: fmt.Sprintf("%x", sum.Sum(nil))})
	}
}

// TestCopyArchiveMatchesSDK writes each archive with our code and with
// node-tar called the way the SDK calls it, for the same entry list, and
// compares every entry.
func TestCopyArchiveMatchesSDK(t *testing.T) {
	dir, _ := parityContext(t)
	tc := Context{Dir: dir}
	cases := []struct {
		src    string
		follow bool
	}{{"app", false}, {"app", true}, {"run.sh", false}, {"src/**/*.go", false}, {"dangling", false}, {"links", false}}
	out := t.TempDir()
	var archives []map[string]any
	for i, c := range cases {
		es, err := tc.CopyEntries(c.src, c.follow)
		if err != nil {
			t.Fatal(err)
		}
		paths := make([]string, len(es))
		for j, e := range es {
			paths[j] = e.Path
		}
		archives = append(archives, map[string]any{"paths": paths, "follow": c.follow, "out": filepath.Join(out, fmt.Sprintf("sdk-%d.tar.gz", i))})
	}
	runSDKHelper(t, map[string]any{"dir": dir, "archives": archives})
	for i, c := range cases {
		var ours bytes.Buffer
		if err := tc.WriteCopyArchive(&ours, c.src, c.follow); err != nil {
			t.Fatalf("archive %q: %v", c.src, err)
		}
		f, err := os.Open(filepath.Join(out, fmt.Sprintf("sdk-%d.tar.gz", i)))
		if err != nil {
			t.Fatal(err)
		}
		want := readArchive(t, f)
		f.Close()
		got := readArchive(t, &ours)
		if len(want) == 0 {
			t.Errorf("archive %q: node-tar wrote no entries", c.src)
		}
		t.Logf("archive %q (follow %v): %d entries", c.src, c.follow, len(got))
		if len(got) != len(want) {
			t.Errorf("archive %q (follow %v): %d entries, SDK %d\nours: %+v\nSDK:  %+v", c.src, c.follow, len(got), len(want), got, want)
			continue
		}
		for j := range got {
			if got[j] != want[j] {
				t.Errorf("archive %q (follow %v) entry %d:\nours %+v\nSDK  %+v", c.src, c.follow, j, got[j], want[j])
			}
		}
	}
}
