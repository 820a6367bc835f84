package e2b

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// downloadEnv is a sandbox holding a report folder with links that point out of it.
func downloadEnv(t *testing.T) (*keptEnv, *Envd) {
	t.Helper()
	e := newKeptEnv(t)
	envd, err := e.c.SandboxEnvd(e.ctx, e.sandbox(), "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := envd.Exec(e.ctx, ExecRequest{Command: `set -e
mkdir -p ~/reports/unit/deep ~/secret
echo pass > ~/reports/summary.txt
echo deep > ~/reports/unit/deep/case.xml
echo hidden > ~/secret/key
ln -s /etc ~/reports/etc-link
ln -s ../secret ~/reports/up-link
ln -s ../secret/key ~/reports/unit/key-link
ln -s ~/reports ~/reports-link`})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("prepare: %v %+v", err, res)
	}
	return e, envd
}

func readLocal(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A folder comes down whole; the sandbox's links are skipped and reported, nothing they point
// at is copied, and a second download replaces the files.
func TestDownloadFolderNeverFollowsLinks(t *testing.T) {
	e, envd := downloadEnv(t)
	dest := filepath.Join(t.TempDir(), "out")
	var seen []string
	res, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{OnFile: func(f DownloadedFile) { seen = append(seen, f.Rel) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := readLocal(t, filepath.Join(dest, "unit/deep/case.xml")); got != "deep\n" {
		t.Fatalf("case.xml: %q", got)
	}
	slices.Sort(res.SkippedLinks)
	if want := []string{"etc-link", "unit/key-link", "up-link"}; !slices.Equal(res.SkippedLinks, want) {
		t.Fatalf("skipped links %v, want %v", res.SkippedLinks, want)
	}
	if res.Files != 2 || len(seen) != 2 {
		t.Fatalf("files %d (%v), want summary.txt and case.xml", res.Files, seen)
	}
	err = filepath.WalkDir(filepath.Dir(dest), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 || strings.Contains(p, "secret") || strings.Contains(p, "passwd") || strings.Contains(p, downloadTempPrefix) {
			t.Errorf("download left %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Exec(e.ctx, ExecRequest{Command: "echo fail > ~/reports/summary.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{IfExists: DownloadIfExistsMerge}); err != nil {
		t.Fatalf("second download: %v", err)
	}
	if got := readLocal(t, filepath.Join(dest, "summary.txt")); got != "fail\n" {
		t.Fatalf("second download left summary.txt %q", got)
	}
}

// A sandbox link named as what to download is refused, not followed.
func TestDownloadRefusesALinkAsSource(t *testing.T) {
	e, envd := downloadEnv(t)
	dest := filepath.Join(t.TempDir(), "out")
	for _, p := range []string{"/home/user/reports-link", "/home/user/reports/up-link"} {
		if _, err := envd.Download(e.ctx, p, dest, DownloadOptions{}); err == nil || !strings.Contains(err.Error(), "never follows links") {
			t.Fatalf("download of link %s: %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(dest); len(entries) != 0 {
		t.Fatalf("refused downloads wrote %v", entries)
	}
}

// Existing local links in the folder are never written through: neither a link where a file
// goes nor one where a folder goes.
func TestDownloadNeverWritesThroughLocalLinks(t *testing.T) {
	e, envd := downloadEnv(t)
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, link := range map[string][2]string{
		"file": {"summary.txt", victim},
		"dir":  {"unit", outside},
	} {
		dest := filepath.Join(base, "out-"+name)
		if err := os.MkdirAll(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link[1], filepath.Join(dest, link[0])); err != nil {
			t.Fatal(err)
		}
		_, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{IfExists: DownloadIfExistsMerge})
		if err == nil || !strings.Contains(err.Error(), "never writes through a link") {
			t.Fatalf("%s link in the local folder: %v", name, err)
		}
	}
	if got := readLocal(t, victim); got != "untouched" {
		t.Fatalf("the file behind the link now holds %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("the folder behind the link now holds %v", entries)
	}
}

// A single file lands under its own name in the folder.
func TestDownloadOneFile(t *testing.T) {
	e, envd := downloadEnv(t)
	dest := t.TempDir()
	res, err := envd.Download(e.ctx, "/home/user/reports/summary.txt", dest, DownloadOptions{})
	if err != nil || res.Files != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if got := readLocal(t, filepath.Join(dest, "summary.txt")); got != "pass\n" {
		t.Fatalf("summary.txt: %q", got)
	}
}

func TestRelUnder(t *testing.T) {
	for p, want := range map[string]string{
		"/r/a": "a", "/r/a/b": "a/b", "/r": "", "/r/../x": "", "/rx/a": "", "/x": "", "/r/a/../../x": "",
	} {
		got, ok := relUnder("/r", p)
		if got != want || ok != (want != "") {
			t.Errorf("relUnder(/r, %q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}
