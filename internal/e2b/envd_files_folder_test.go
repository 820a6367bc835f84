package e2b_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

func listPaths(t *testing.T, f e2b.LocalFolder) ([]string, []e2b.SkippedEntry) {
	t.Helper()
	files, skipped, err := f.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out, skipped
}

// Include and exclude patterns select files, and a pattern that matches a directory stands for
// everything in it; the listing is in byte order of the full path.
func TestLocalFolderPatterns(t *testing.T) {
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{
		"a/x.py": "1", "a-b/x.py": "2", "main.py": "3", ".env": "4", "README.md": "5",
		"node_modules/dep/index.js": "6", "src/app/__pycache__/m.pyc": "7", "src/app/m.py": "8",
		".terraform/providers/p": "9", "infra/.terraform/terraform.tfstate": "10",
	})
	for _, tc := range []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		// Everything but Terraform's working folders, at every depth (infra/.terraform too), without
		// a pattern: the pull-request guide's exclude relies on it.
		{"everything", nil, nil, []string{".env", "README.md", "a-b/x.py", "a/x.py", "main.py", "node_modules/dep/index.js",
			"src/app/__pycache__/m.pyc", "src/app/m.py"}},
		{"exclude trees", nil, []string{"node_modules", "**/__pycache__", ".env"},
			[]string{"README.md", "a-b/x.py", "a/x.py", "main.py", "src/app/m.py"}},
		{"include a directory and a glob", []string{"src", "*.md"}, []string{"**/*.pyc"}, []string{"README.md", "src/app/m.py"}},
		{"braces and globstar", []string{"**/*.{py,js}"}, []string{"node_modules/"}, []string{"a-b/x.py", "a/x.py", "main.py",
			"src/app/m.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := listPaths(t, e2b.LocalFolder{Dir: dir, Include: tc.include, Exclude: tc.exclude})
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Links to files are followed; links to directories, broken links and pipes are left out with
// a reason, never followed into a loop.
func TestLocalFolderSkipsWhatCannotBeUploaded(t *testing.T) {
	dir := t.TempDir()
	harness.WriteTree(t, dir, map[string]string{"real/file.txt": "content"})
	for _, l := range []struct{ target, name string }{
		{"real/file.txt", "to-file"}, {"real", "to-dir"}, {"missing", "broken"}, {".", "real/loop"},
	} {
		if err := os.Symlink(l.target, filepath.Join(dir, filepath.FromSlash(l.name))); err != nil {
			t.Skipf("symbolic links not available here: %v", err)
		}
	}
	got, skipped := listPaths(t, e2b.LocalFolder{Dir: dir})
	if want := []string{"real/file.txt", "to-file"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Path] = s.Reason
	}
	for p, want := range map[string]string{"to-dir": "directory", "broken": "broken", "real/loop": "directory"} {
		if !strings.Contains(reasons[p], want) {
			t.Errorf("%s left out for %q, want a reason mentioning %q", p, reasons[p], want)
		}
	}
}

// The digest covers paths, modes and contents, and nothing else.
func TestFolderDigest(t *testing.T) {
	scan := func(files map[string]string) string {
		dir := t.TempDir()
		harness.WriteTree(t, dir, files)
		got, _, err := e2b.LocalFolder{Dir: dir}.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return e2b.FolderDigest(got)
	}
	base := scan(map[string]string{"a.sh*": "echo a", "b/c.txt": "c"})
	if again := scan(map[string]string{"a.sh*": "echo a", "b/c.txt": "c"}); again != base {
		t.Fatal("the same files in another folder give another digest")
	}
	for name, files := range map[string]map[string]string{
		"content": {"a.sh*": "echo A", "b/c.txt": "c"},
		"mode":    {"a.sh": "echo a", "b/c.txt": "c"},
		"name":    {"a.sh*": "echo a", "b/d.txt": "c"},
		"removed": {"a.sh*": "echo a"},
	} {
		if scan(files) == base {
			t.Errorf("a change of %s leaves the digest unchanged", name)
		}
	}
}

func TestValidateFolderPattern(t *testing.T) {
	for p, bad := range map[string]bool{"src/**": false, "*.{js,ts}": false, "/etc": true, "../x": true, "": true,
		"a/../../b": true, "+(a|b)": true} {
		if err := e2b.ValidateFolderPattern(p); (err != nil) != bad {
			t.Errorf("ValidateFolderPattern(%q) = %v, want error: %v", p, err, bad)
		}
	}
}
