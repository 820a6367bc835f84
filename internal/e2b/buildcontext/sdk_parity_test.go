package buildcontext

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// sdkHashes asks E2B's JS SDK (conformance/node_modules) for the files hash
// of each copy. It installs the locked SDK when it is missing.
func sdkHashes(t *testing.T, dir string, ignore []string, copies []sdkCopy) ([]*string, []*string) {
	return runSDKHelper(t, map[string]any{"dir": dir, "ignore": ignore, "copies": copies})
}

// runSDKHelper runs conformance/template-hash.mjs with input.
func runSDKHelper(t *testing.T, input map[string]any) ([]*string, []*string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the SDK parity check needs Node 20+ to run E2B's JS SDK")
	}
	conf, err := filepath.Abs("../../../conformance")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(conf, "node_modules", "e2b", "package.json")); err != nil {
		npm, lerr := exec.LookPath("npm")
		if lerr != nil {
			t.Skip("E2B's SDK is not installed in conformance/node_modules and npm is missing to install it")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = conf
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in conformance: %v\n%s", err, out)
		}
	}
	in, _ := json.Marshal(input)
	cmd := exec.Command(node, filepath.Join(conf, "template-hash.mjs"))
	cmd.Dir = conf
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node template-hash.mjs: %v\n%s", err, stderr.String())
	}
	var res struct {
		Hashes []*string `json:"hashes"`
		Errors []*string `json:"errors"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decode SDK answer %q: %v", out, err)
	}
	return res.Hashes, res.Errors
}

type sdkCopy struct {
	Src             string `json:"src"`
	Dest            string `json:"dest"`
	ResolveSymlinks bool   `json:"resolveSymlinks"`
}

// parityContext builds a context with the cases that make hashing subtle:
// nested and empty directories, dot files, executables, links to files and
// to directories inside the context, links to a file outside it (sent as
// links), a dangling link, ignored files and names that sort differently by
// bytes and by UTF-16. The dangling link stays outside the copied folders:
// the SDK fails on one inside a copied folder (see
// TestHashCopyDanglingLinkInFolder). Links the SDK would follow out of the
// context are refused instead (TestCopyOutsideLinkSDKFollows).
func parityContext(t *testing.T) (string, string) {
	t.Helper()
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	dir := filepath.Join(root, "ctx")
	files := map[string]string{
		"app/main.py":             "print('hi')\n",
		"app/.env":                "A=1\n",
		"app/lib/util.py":         "x = 1\n",
		"app/lib/deep/a/b.txt":    "deep\n",
		"app/debug.log":           "noise\n",
		"app/node_modules/m/i.js": "module.exports = 1\n",
		"app/Z.txt":               "upper\n",
		"app/é.txt":               "accent\n",
		"app/\U0001F600.txt":      "astral\n",
		"app/\uFF5E.txt":          "fullwidth\n",
		"run.sh":                  "#!/bin/sh\necho run\n",
		"requirements.txt":        "requests\n",
		"src/a.go":                "package a\n",
		"src/b.go":                "package b\n",
		"src/c.txt":               "c\n",
		"src/sub/d.go":            "package d\n",
		".dockerignore":           "# comment\n\n*.log\napp/node_modules/**\n",
		"big.bin":                 string(bytes.Repeat([]byte{0, 1, 2, 3}, 50000)),
	}
	harness.WriteTree(t, dir, files)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "app", "empty"), 0o700))
	must(os.MkdirAll(filepath.Join(outside, "inner"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "o.txt"), []byte("outside\n"), 0o600))
	must(os.WriteFile(filepath.Join(outside, "inner", "i.txt"), []byte("inner\n"), 0o644))
	must(os.Symlink("main.py", filepath.Join(dir, "app", "link-file")))
	must(os.Symlink("lib", filepath.Join(dir, "app", "link-dir")))
	must(os.MkdirAll(filepath.Join(dir, "links"), 0o755))
	must(os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(dir, "links", "abs-outside-file")))
	must(os.Symlink("../../outside/o.txt", filepath.Join(dir, "links", "rel-outside-file")))
	must(os.Symlink("../app/main.py", filepath.Join(dir, "links", "inside-file")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	must(os.Symlink("app", filepath.Join(dir, "applink")))
	return dir, outside
}

func TestHashCopyMatchesSDK(t *testing.T) {
	dir, _ := parityContext(t)
	copies := []sdkCopy{
		{Src: "app", Dest: "/app"},
		{Src: "app/", Dest: "/app/"},
		{Src: "./app", Dest: "/home/user/app"},
		{Src: "app", Dest: "/app", ResolveSymlinks: true},
		{Src: "requirements.txt", Dest: "/tmp/"},
		{Src: "run.sh", Dest: "/usr/local/bin/run.sh"},
		{Src: "src/*.go", Dest: "/src/"},
		{Src: "src/**/*.go", Dest: "/src/"},
		{Src: "**/*.py", Dest: "/py/"},
		{Src: "src/{a,b}.go", Dest: "/ab/"},
		{Src: "src/[ab].go", Dest: "/ab/"},
		{Src: "src/?.go", Dest: "/q/"},
		{Src: "app/lib", Dest: "/lib"},
		{Src: "applink", Dest: "/applink"},
		{Src: "applink", Dest: "/applink", ResolveSymlinks: true},
		{Src: "app/link-dir", Dest: "/ld"},
		{Src: "dangling", Dest: "/d"},
		{Src: "src", Dest: "/src"},
		{Src: ".", Dest: "/tc"},
		{Src: "*", Dest: "/top"},
		{Src: "big.bin", Dest: "/big.bin"},
		{Src: "missing.txt", Dest: "/m"},
		{Src: "app/lib/../main.py", Dest: "/main.py"},
		{Src: "links", Dest: "/links"},
		{Src: "links/*", Dest: "/links/"},
		{Src: "links/inside-file", Dest: "/links/f", ResolveSymlinks: true},
	}
	ignore := []string{"src/c.txt"}
	want, sdkErrs := sdkHashes(t, dir, ignore, copies)
	tc := Context{Dir: dir, Ignore: ignore}
	for i, c := range copies {
		got, err := tc.HashCopy(c.Src, c.Dest, c.ResolveSymlinks)
		switch {
		case want[i] == nil && err == nil:
			t.Errorf("copy %q: SDK failed (%s) but we hashed %s", c.Src, strOr(sdkErrs[i]), got)
		case want[i] == nil:
			t.Logf("copy %q: both refuse (SDK: %s; ours: %v)", c.Src, strOr(sdkErrs[i]), err)
		case err != nil:
			t.Errorf("copy %q: SDK hashed %s but we failed: %v", c.Src, *want[i], err)
		case got != *want[i]:
			es, _ := tc.CopyEntries(c.Src, c.ResolveSymlinks)
			t.Errorf("copy %q -> %q (resolve %v): hash %s, SDK %s; our entries: %v", c.Src, c.Dest, c.ResolveSymlinks, got, *want[i], es)
		}
	}
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// The SDK means to hash a dangling link as a link (it stats with
// throwIfNoEntry: false), but inside a copied folder glob has already tried
// to list the link and forgotten that it is one, so the SDK throws ENOENT.
// We hash it as the link it is; the SDK hashes the same link alone the same
// way, which the parity test above checks.
func TestHashCopyDanglingLinkInFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "app", "dangling")); err != nil {
		t.Fatal(err)
	}
	tc := Context{Dir: dir}
	h1, err := tc.HashCopy("app", "/app", false)
	if err != nil {
		t.Fatalf("hash a folder with a dangling link: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "app", "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(dir, "app", "dangling")); err != nil {
		t.Fatal(err)
	}
	h2, err := tc.HashCopy("app", "/app", false)
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Errorf("retargeting a dangling link kept the hash %s", h1)
	}
}

// E2B's SDK reads through links out of the context: its hash of these
// copies changes with a file outside the context, and it would upload that
// file. The provider refuses them, naming the link (see
// TestCopyNeverReadsOutsideContext); this test keeps the reason on record.
func TestCopyOutsideLinkSDKFollows(t *testing.T) {
	root := t.TempDir()
	dir, outside := filepath.Join(root, "ctx"), filepath.Join(root, "outside")
	outsideFile := filepath.Join(outside, "creds.txt")
	for _, d := range []string{filepath.Join(dir, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outsideFile, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for l, target := range map[string]string{"linkdir": "../outside", "sub/inner": "../../outside", "filelink": "../outside/creds.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	copies := []sdkCopy{
		{Src: "linkdir/creds.txt", Dest: "/c"},
		{Src: "sub", Dest: "/sub"},
		{Src: "filelink", Dest: "/f", ResolveSymlinks: true},
	}
	before, errs := sdkHashes(t, dir, nil, copies)
	if err := os.WriteFile(outsideFile, []byte("changed outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after, _ := sdkHashes(t, dir, nil, copies)
	for i, c := range copies {
		if before[i] == nil {
			t.Errorf("SDK copy %q failed (%s); the test expects it to read through the link", c.Src, strOr(errs[i]))
			continue
		}
		if after[i] == nil || *after[i] == *before[i] {
			t.Errorf("SDK copy %q: hash did not follow the file outside the context", c.Src)
		}
		if _, err := (Context{Dir: dir}).HashCopy(c.Src, c.Dest, c.ResolveSymlinks); err == nil {
			t.Errorf("copy %q: hashed; want it refused", c.Src)
		}
	}
}
