package e2b_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links not available here: %v", err)
	}
}

func skipsOf(skipped []e2b.SkippedEntry) map[string]e2b.SkippedEntry {
	out := map[string]e2b.SkippedEntry{}
	for _, s := range skipped {
		out[s.Path] = s
	}
	return out
}

// A link whose target is outside the folder is never read, whether its target is absolute,
// climbs out with "..", or passes through a link inside; links that stay inside are followed.
func TestLocalFolderNeverFollowsLinksOut(t *testing.T) {
	outside := t.TempDir()
	harness.WriteTree(t, outside, map[string]string{"credentials": "secret"})
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"app/main.py": "print(1)", "config.txt": "ok"})
	symlink(t, filepath.Join(outside, "credentials"), filepath.Join(dir, "abs"))
	rel, _ := filepath.Rel(dir, filepath.Join(outside, "credentials"))
	symlink(t, rel, filepath.Join(dir, "climb"))
	symlink(t, "/proc/self/environ", filepath.Join(dir, "environ"))
	symlink(t, outside, filepath.Join(dir, "outdir"))
	symlink(t, "../config.txt", filepath.Join(dir, "app", "inside"))
	symlink(t, "app", filepath.Join(dir, "applink"))
	symlink(t, "applink/main.py", filepath.Join(dir, "via-link"))

	files, skipped, err := e2b.LocalFolder{Dir: dir}.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if want := []string{"app/inside", "app/main.py", "config.txt", "via-link"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	skips := skipsOf(skipped)
	for _, p := range []string{"abs", "climb", "environ", "outdir"} {
		if s, ok := skips[p]; !ok || s.Kind != e2b.SkipOutside {
			t.Errorf("%s: skipped as %+v, want SkipOutside", p, s)
		}
	}
	if s := skips["applink"]; !strings.Contains(s.Reason, "directory") {
		t.Errorf("applink: %+v, want a link to a directory", s)
	}
}

// A file replaced by a link out of the folder between the walk and the read is not read.
func TestLocalFolderOpenRefusesSwappedLink(t *testing.T) {
	outside := t.TempDir()
	harness.WriteTree(t, outside, map[string]string{"credentials": "secret"})
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"a.txt": "a", "sub/b.txt": "b"})
	f := e2b.LocalFolder{Dir: dir}
	if _, _, err := f.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(outside, "credentials"), filepath.Join(dir, "a.txt"))
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(dir, "sub"))
	for _, rel := range []string{"a.txt", "sub/b.txt", "sub/../../" + filepath.Base(outside) + "/credentials"} {
		r, err := f.Open(rel)
		if err == nil {
			b, _ := io.ReadAll(r)
			_ = r.Close()
			t.Errorf("Open(%s) read %q through a link out of the folder", rel, b)
		}
	}
}

// A source that is itself a link to a directory is that directory.
func TestLocalFolderSourceIsLink(t *testing.T) {
	base := t.TempDir()
	harness.WriteTree(t, base, map[string]string{"releases/v2/app.py": "v2", "releases/v1/app.py": "v1"})
	symlink(t, "releases/v2", filepath.Join(base, "current"))
	got, _ := listPaths(t, e2b.LocalFolder{Dir: filepath.Join(base, "current")})
	if want := []string{"app.py"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
}

func planZip(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"tfplan", "tfstate", "tfconfig/m-/main.tf"} {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(`{"secret":"hunter2"}`))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Terraform's working files are left out and reported, unless an include pattern names them;
// the dependency lock file is sent.
func TestLocalFolderLeavesOutWorkingFiles(t *testing.T) {
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{
		"src/app.py":                                      "print(1)",
		"tfplan.md":                                       "notes",
		"infra/main.tf":                                   "# config",
		"infra/.terraform.lock.hcl":                       "# lock",
		"infra/.terraform/providers/x":                    "binary",
		"infra/terraform.tfstate":                         `{"secret":"hunter2"}`,
		"infra/terraform.tfstate.backup":                  `{"secret":"hunter2"}`,
		"infra/.terraform.tfstate.lock.info":              `{"ID":"x"}`,
		"infra/terraform.tfstate.d/dev/terraform.tfstate": `{}`,
		"infra/prod.tfplan":                               "x",
		"infra/plan":                                      planZip(t),
		"infra/crash.log":                                 "panic",
		"infra/other.zip":                                 "PK\x03\x04 not a plan at all",
	})
	got, skipped := listPaths(t, e2b.LocalFolder{Dir: dir})
	want := []string{"infra/main.tf", "infra/other.zip", "src/app.py", "tfplan.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	skips := skipsOf(skipped)
	for _, p := range []string{"infra/.terraform/", "infra/.terraform.lock.hcl", "infra/terraform.tfstate", "infra/terraform.tfstate.backup",
		"infra/.terraform.tfstate.lock.info", "infra/terraform.tfstate.d/", "infra/prod.tfplan", "infra/plan", "infra/crash.log"} {
		if s, ok := skips[p]; !ok || s.Kind != e2b.SkipWorking {
			t.Errorf("%s: skipped as %+v, want SkipWorking", p, s)
		}
	}
	// Excluded: not reported. Named in include: sent. A wildcard or a folder above: not.
	got, skipped = listPaths(t, e2b.LocalFolder{Dir: dir, Include: []string{"infra/terraform.tfstate", "infra/*.tfstate*", "src"},
		Exclude: []string{"infra/.terraform"}})
	if want := []string{"infra/terraform.tfstate", "src/app.py"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("with include: files %q, want %q", got, want)
	}
	if _, ok := skipsOf(skipped)["infra/.terraform/"]; ok {
		t.Errorf("an excluded working folder is reported: %+v", skipped)
	}
	got, _ = listPaths(t, e2b.LocalFolder{Dir: dir, Include: []string{"infra", "infra/.terraform.lock.hcl"}})
	if want := []string{"infra/.terraform.lock.hcl", "infra/main.tf", "infra/other.zip"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("include infra: files %q, want %q", got, want)
	}
}

// Hashes are reused within a process only while a file's size, mode and modification time stay:
// an edit of the same size that changes the time is hashed again.
func TestLocalFolderScanRehashesEditedFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	scan := func(content string, at time.Time) string {
		t.Helper()
		harness.WriteTree(t, dir, map[string]string{"a.txt": content})
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		files, _, err := e2b.LocalFolder{Dir: dir}.Scan(context.Background())
		if err != nil || len(files) != 1 {
			t.Fatalf("scan: %v %v", files, err)
		}
		return files[0].SHA256
	}
	old := time.Now().Add(-time.Hour)
	first := scan("aaaa", old)
	if again := scan("aaaa", old); again != first {
		t.Fatal("the same file hashes differently")
	}
	if edited := scan("bbbb", old.Add(time.Second)); edited == first {
		t.Fatal("a same-size edit with a new modification time kept the old hash")
	}
}
