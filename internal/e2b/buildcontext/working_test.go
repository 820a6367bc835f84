package buildcontext

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeFiles creates files (path -> content) under dir with mode.
func writeFiles(t *testing.T, dir string, files map[string]string, mode os.FileMode) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// planZip is a saved plan as Terraform and OpenTofu write it: a zip archive
// with a "tfplan" entry (and the state and configuration).
func planZip(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"tfplan", "tfstate", "tfconfig/m-/main.tf"} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("password = \"hunter2\"\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// otherZip is a zip archive that is no plan.
func otherZip(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("lib/a.py")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("x = 1\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTerraformWorkingFilesNeverSent: a context that holds a Terraform or
// OpenTofu working directory hashes and archives exactly as the same context
// without the working files, and changing them changes nothing.
func TestTerraformWorkingFilesNeverSent(t *testing.T) {
	app := map[string]string{
		"main.tf":          "resource \"e2b_template\" \"app\" {}\n",
		"app/server.py":    "print('serve')\n",
		"app/vendor.zip":   otherZip(t),
		"app/config.json":  `{"meta":{"a":1},"name":"not a plan"}`,
		"Dockerfile":       "FROM ubuntu\nCOPY . /app\n",
		"infra/variables":  "region\n",
		"tfplan.md":        "notes about plans\n",
		"app/.dockerfiles": "x\n",
	}
	working := map[string]string{
		".terraform/providers/registry/e2b/terraform-provider-e2b": "binary",
		".terraform/terraform.tfstate":                             "{}",
		".terraform.lock.hcl":                                      "provider \"e2b\" {}\n",
		"terraform.tfstate":                                        `{"secret":"hunter2"}`,
		"terraform.tfstate.backup":                                 `{"secret":"hunter2"}`,
		"terraform.tfstate.1700000000.backup":                      `{"secret":"hunter2"}`,
		".terraform.tfstate.lock.info":                             `{"ID":"x"}`,
		"prod.tfstate":                                             `{"secret":"hunter2"}`,
		"terraform.tfstate.d/dev/terraform.tfstate":                `{"secret":"hunter2"}`,
		"crash.log":                             "panic\n",
		"crash.20240101.log":                    "panic\n",
		"tfplan":                                planZip(t),
		"infra/release.out":                     planZip(t),
		"enc.plan":                              `{"meta":{"key_provider.pbkdf2.k":"eyJ9"},"encrypted_data":"c2VjcmV0","encryption_version":"v0"}`,
		"infra/.terraform/modules/modules.json": "{}",
		"infra/terraform.tfstate":               `{"secret":"hunter2"}`,
	}
	with, without := t.TempDir(), t.TempDir()
	writeFiles(t, with, app, 0o644)
	writeFiles(t, without, app, 0o644)
	writeFiles(t, with, working, 0o644)
	// A provider cache link out of the context inside .terraform is never
	// looked at.
	if err := os.Symlink(t.TempDir(), filepath.Join(with, ".terraform", "plugin-cache")); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{".", "*", "app", "infra", "**/*"} {
		got, err := Context{Dir: with}.HashCopy(src, "/app", false)
		if err != nil {
			t.Fatalf("COPY %s with working files: %v", src, err)
		}
		want, err := Context{Dir: without}.HashCopy(src, "/app", false)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			es, _ := Context{Dir: with}.CopyEntries(src, false)
			t.Errorf("COPY %s: hash %s with working files, %s without; entries: %v", src, got, want, es)
		}
		var buf bytes.Buffer
		if err := (Context{Dir: with}).WriteCopyArchive(&buf, src, false); err != nil {
			t.Fatal(err)
		}
		for _, e := range readArchive(t, &buf) {
			if _, ok := working[strings.TrimSuffix(e.Name, "/")]; ok || workingFile(strings.TrimSuffix(e.Name, "/")) {
				t.Errorf("COPY %s: the archive holds %s", src, e.Name)
			}
		}
		if text := archiveText(t, with, src, false, nil); strings.Contains(text, "hunter2") {
			t.Errorf("COPY %s: the archive holds a secret from a state or plan file", src)
		}
	}
	// Naming a working file is an error that says why.
	for _, src := range []string{"terraform.tfstate", "tfplan", ".terraform", "*.tfstate*"} {
		_, err := Context{Dir: with}.HashCopy(src, "/x", false)
		if err == nil || !strings.Contains(err.Error(), "never sent") {
			t.Errorf("COPY %s: %v; want an error saying working files are never sent", src, err)
		}
	}
	// A .dockerignore still applies on top.
	writeFiles(t, with, map[string]string{".dockerignore": "app/*.json\n"}, 0o644)
	writeFiles(t, without, map[string]string{".dockerignore": "app/*.json\n"}, 0o644)
	got, _ := Context{Dir: with}.HashCopy("app", "/app", false)
	want, _ := Context{Dir: without}.HashCopy("app", "/app", false)
	if got != want {
		t.Errorf("with a .dockerignore: hash %s with working files, %s without", got, want)
	}
	es, err := Context{Dir: with}.CopyEntries("app", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Path == "app/config.json" {
			t.Errorf("the .dockerignore did not apply: %v", es)
		}
	}
}

// TestNormalizeModes: with NormalizeModes, checkouts made under different
// umasks hash and archive alike; without, they differ (the SDK's hash). On a
// checkout made with umask 022 both hashes are the SDK's.
func TestNormalizeModes(t *testing.T) {
	files := map[string]string{"app/a.py": "a\n", "app/lib/b.py": "b\n"}
	laptop, ci := t.TempDir(), t.TempDir()
	writeFiles(t, laptop, files, 0o644)
	writeFiles(t, ci, files, 0o664)
	writeFiles(t, laptop, map[string]string{"app/run.sh": "#!/bin/sh\n"}, 0o755)
	writeFiles(t, ci, map[string]string{"app/run.sh": "#!/bin/sh\n"}, 0o775)
	for _, d := range []string{filepath.Join(ci, "app"), filepath.Join(ci, "app", "lib")} {
		if err := os.Chmod(d, 0o775); err != nil {
			t.Fatal(err)
		}
	}
	hash := func(dir string, normalize bool) string {
		h, err := Context{Dir: dir, NormalizeModes: normalize}.HashCopy("app", "/app", false)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if hash(laptop, false) == hash(ci, false) {
		t.Fatal("modes 0644 and 0664 hash alike without NormalizeModes; the SDK's hash covers modes")
	}
	if hash(laptop, true) != hash(ci, true) {
		t.Error("with NormalizeModes, umask 022 and 002 checkouts hash differently")
	}
	if hash(laptop, true) != hash(laptop, false) {
		t.Error("on a umask 022 checkout NormalizeModes changed the hash")
	}
	var buf bytes.Buffer
	if err := (Context{Dir: ci, NormalizeModes: true}).WriteCopyArchive(&buf, "app", false); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"app/": 0o755, "app/a.py": 0o644, "app/lib/": 0o755, "app/lib/b.py": 0o644, "app/run.sh": 0o755}
	for _, e := range readArchive(t, &buf) {
		if m, ok := want[e.Name]; !ok || e.Mode != m {
			t.Errorf("archive entry %s has mode %o; want %o", e.Name, e.Mode, m)
		}
	}
}

// BenchmarkHashCopy10kFiles hashes a context of 10,000 small files in 100
// folders: the cost per file of walking, opening and hashing (a plan reads
// the context once per template).
//
//	go test ./internal/e2b -run '^$' -bench HashCopy10k
func BenchmarkHashCopy10kFiles(b *testing.B) {
	dir := b.TempDir()
	for d := 0; d < 100; d++ {
		for f := 0; f < 100; f++ {
			p := filepath.Join(dir, "app", "d"+strconv.Itoa(d), "f"+strconv.Itoa(f)+".py")
			if f == 0 {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
			}
			if err := os.WriteFile(p, []byte("print('hello')\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	tc := Context{Dir: dir}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tc.HashCopy("app", "/app", false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/10000, "µs/file")
}
