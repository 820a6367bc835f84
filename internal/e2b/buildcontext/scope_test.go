package buildcontext

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canary is the content of every file outside the context: it must never
// show up in an archive.
const canary = "SECRET-OUTSIDE-THE-CONTEXT"

// escapeContext builds a context named "ctx" next to a folder "outside",
// with every form of link out of the context, and links that leave and come
// back, or point inside by an absolute path.
func escapeContext(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "ctx")
	outside := filepath.Join(root, "outside")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(outside, "deep"), filepath.Join(dir, "real"), filepath.Join(dir, "sub"), filepath.Join(dir, "files")} {
		must(os.MkdirAll(d, 0o755))
	}
	must(os.WriteFile(filepath.Join(outside, "creds.txt"), []byte(canary+"\n"), 0o600))
	must(os.WriteFile(filepath.Join(outside, "deep", "key.pem"), []byte(canary+" key\n"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "real", "file.txt"), []byte("inside\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "files", "app.txt"), []byte("app\n"), 0o644))
	links := map[string]string{
		"linkdir":        "../outside",           // folder link
		"absdir":         outside,                // absolute folder link
		"sub/inner":      "../../outside",        // in a folder a COPY copies
		"chain1":         "chain2",               // a chain whose last link leaves
		"chain2":         "../outside",           //
		"filelink":       "../outside/creds.txt", // file link
		"files/out.txt":  filepath.Join(outside, "creds.txt"),
		"up":             "..",                         // the folder holding the context
		"applink":        "real",                       // inside: fine
		"real/x":         "../../outside",              // reached through applink
		"loopback":       "../ctx/real",                // leaves and comes back in
		"abs-inside":     filepath.Join(dir, "real"),   // absolute, inside
		"dangling":       "nowhere",                    // dangling, inside
		"dangling-out":   "../nowhere",                 // dangling, outside
		"real/self-loop": "self-loop",                  // a link to itself
		"files/in.txt":   "../real/file.txt",           // file link inside
		"files/up-in":    "../../ctx/real/file.txt",    // leaves and comes back in
		"files/.hidden":  "../../outside/deep/key.pem", // dot name
		"sub/ok":         "../real",                    // folder link inside
		"sub/abs-in":     filepath.Join(dir, "real"),   // absolute folder link inside
		"real/deeper":    "../sub/inner",               // a link to a link that leaves
		"dotdot":         "./../outside/./deep/../.",   // unclean
	}
	for l, target := range links {
		must(os.Symlink(target, filepath.Join(dir, l)))
	}
	return dir
}

// TestCopyNeverReadsOutsideContext: whatever the link form, a COPY that
// would read through a link out of the context fails naming the link, and a
// COPY that sends links as links reads nothing out there.
func TestCopyNeverReadsOutsideContext(t *testing.T) {
	dir := escapeContext(t)
	refused := []struct {
		src    string
		follow bool
		link   string // the link the error names
		via    string // the link of the chain that leaves, when not link
	}{
		{"linkdir/creds.txt", false, "linkdir", ""},
		{"linkdir/*", false, "linkdir", ""},
		{"linkdir/**/*.pem", false, "linkdir", ""},
		{"linkdir", true, "linkdir", ""},
		{"absdir/creds.txt", false, "absdir", ""},
		{"absdir", true, "absdir", ""},
		{"sub", false, "sub/inner", ""},
		{"sub/inner/deep/key.pem", false, "sub/inner", ""},
		{"chain1/creds.txt", false, "chain1", "chain2"},
		{"chain1", true, "chain1", "chain2"},
		{"filelink", true, "filelink", ""},
		{"files", true, "files/.hidden", ""}, // the first in order
		{"files/.hidden", true, "files/.hidden", ""},
		{"up/outside/creds.txt", false, "up", ""},
		{"up", true, "up", ""},
		{"applink/x/creds.txt", false, "applink/x", ""},
		{"real/deeper/creds.txt", false, "real/deeper", "sub/inner"},
		{"dangling-out", true, "dangling-out", ""},
		{"dotdot/creds.txt", false, "dotdot", ""},
	}
	for _, c := range refused {
		tc := Context{Dir: dir}
		_, err := tc.HashCopy(c.src, "/dest", c.follow)
		var esc *LinkEscapeError
		if !errors.As(err, &esc) {
			t.Errorf("COPY %s (follow %v): %v; want the link %q named", c.src, c.follow, err, c.link)
			continue
		}
		if esc.Link != c.link || esc.Via != c.via {
			t.Errorf("COPY %s (follow %v): names %q via %q; want %q via %q (%v)", c.src, c.follow, esc.Link, esc.Via, c.link, c.via, err)
		}
		if !strings.Contains(err.Error(), "outside the context directory") {
			t.Errorf("COPY %s: message %q does not say the link leaves the context", c.src, err)
		}
		if err := tc.WriteCopyArchive(&bytes.Buffer{}, c.src, c.follow); !errors.As(err, &esc) {
			t.Errorf("archive of COPY %s (follow %v): %v; want the link named", c.src, c.follow, err)
		}
	}

	allowed := []struct {
		src     string
		follow  bool
		ignore  []string
		content string // a file content the archive must hold, if any
	}{
		{"linkdir", false, nil, ""},  // the link itself
		{"filelink", false, nil, ""}, // the link itself
		{"files", false, nil, "app"}, // links to files outside, sent as links
		{".", false, nil, "inside"},  // a leading ** does not look into links
		{"loopback/file.txt", false, nil, "inside"},
		{"abs-inside/file.txt", false, nil, "inside"},
		{"applink", true, nil, ""},
		{"files/in.txt", true, nil, "inside"},
		{"files/up-in", true, nil, "inside"},
		{"sub/ok", true, nil, ""},
		{"sub/abs-in", true, nil, ""},
		{"dangling", true, nil, ""},
		{"sub", false, []string{"sub/inner"}, ""}, // excluded: not followed, no error
		{"*", false, []string{"sub/inner", "linkdir", "absdir", "chain1", "up", "real/x", "real/deeper", "dotdot"}, "inside"},
	}
	for _, c := range allowed {
		tc := Context{Dir: dir, Ignore: c.ignore}
		if _, err := tc.HashCopy(c.src, "/dest", c.follow); err != nil {
			t.Errorf("COPY %s (follow %v): %v", c.src, c.follow, err)
			continue
		}
		var buf bytes.Buffer
		if err := tc.WriteCopyArchive(&buf, c.src, c.follow); err != nil {
			t.Errorf("archive of COPY %s (follow %v): %v", c.src, c.follow, err)
			continue
		}
		for _, e := range readArchive(t, &buf) {
			if strings.HasPrefix(e.Name, "linkdir/") || strings.HasPrefix(e.Name, "sub/inner/") || strings.HasPrefix(e.Name, "up/") {
				t.Errorf("COPY %s: archive holds %q, behind a link out of the context", c.src, e.Name)
			}
		}
		if archived := archiveText(t, dir, c.src, c.follow, c.ignore); strings.Contains(archived, canary) {
			t.Errorf("COPY %s (follow %v): the archive holds a file from outside the context", c.src, c.follow)
		} else if c.content != "" && !strings.Contains(archived, c.content) {
			t.Errorf("COPY %s (follow %v): the archive lacks %q", c.src, c.follow, c.content)
		}
	}
}

// archiveText is the whole uncompressed archive of a COPY, as text.
func archiveText(t *testing.T, dir, src string, follow bool, ignore []string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := (Context{Dir: dir, Ignore: ignore}).WriteCopyArchive(&buf, src, follow); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// A .dockerignore that is a link out of the context is not read either.
func TestDockerignoreLinkOutsideRefused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ctx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ignore"), []byte("*.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../ignore", filepath.Join(dir, ".dockerignore")); err != nil {
		t.Fatal(err)
	}
	_, err := Context{Dir: dir}.HashCopy("a.md", "/a", false)
	var esc *LinkEscapeError
	if !errors.As(err, &esc) || esc.Link != ".dockerignore" {
		t.Fatalf("a .dockerignore linked from outside: %v; want it named as a link out of the context", err)
	}
}
