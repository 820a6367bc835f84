package registry

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestInstallFromFilesystemMirror: the offline install the README documents. On a connected
// machine `providers mirror` copies the release into a folder (checking SHA256SUMS and its
// signature) and `providers lock` records the release's checksums (zh:, from the signed
// SHA256SUMS) in .terraform.lock.hcl. On the offline machine a filesystem_mirror, with no
// registry asked, installs it. Every CLI reports a mirror install as "(unauthenticated)" (a
// folder carries no signature); what protects it is the lock file: the archive must match one
// of its checksums, so one the release did not ship is refused.
func TestInstallFromFilesystemMirror(t *testing.T) {
	r := needReleases(t)
	reg, caFile := Start(t, namespace, typeName, r.key, r.other)
	reg.Add(r.load(t, r.current))
	emu := startReleasedEmulator(t, r)
	platform := runtime.GOOS + "_" + runtime.GOARCH
	for _, cli := range r.clis {
		t.Run(filepath.Base(cli), func(t *testing.T) {
			// The connected machine.
			online := newWorkspace(t, cli, reg, caFile, emu, r.current, nil)
			mirror := t.TempDir()
			online.must("providers", "mirror", "-platform="+platform, mirror)
			online.must("providers", "lock", "-platform="+platform) // a release for more platforms: one -platform each
			lock, err := os.ReadFile(filepath.Join(online.dir, ".terraform.lock.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(lock), `"zh:`) {
				t.Fatalf("providers lock recorded no release checksums (zh:):\n%s", lock)
			}

			// The offline machine: the configuration and its lock file, the mirror, no registry.
			offline := newWorkspace(t, cli, reg, caFile, emu, r.current, map[string]string{".terraform.lock.hcl": string(lock)})
			cfg := filepath.Join(t.TempDir(), "offline.tfrc")
			writeCLIConfig(t, cfg, mirror)
			offline.setEnv("TF_CLI_CONFIG_FILE", cfg)
			out := offline.must("init", "-no-color", "-input=false")
			t.Logf("%s init from the mirror:\n%s", offline.name, out)
			want := regexp.MustCompile(`Installed ` + regexp.QuoteMeta(reg.Source()) + ` v` + regexp.QuoteMeta(r.current) + ` \(`)
			if !want.MatchString(out) {
				t.Fatalf("%s init from the mirror does not say it installed v%s:\n%s", offline.name, r.current, out)
			}
			if after, err := os.ReadFile(filepath.Join(offline.dir, ".terraform.lock.hcl")); err != nil || string(after) != string(lock) {
				t.Fatalf("init from the mirror changed the lock file (%v):\n%s", err, after)
			}
			offline.must("plan", "-no-color", "-input=false")

			// A mirror holding an archive the release did not ship: the provider inside changed
			// (a changed zip around the same files would still match the lock file's h1: hash).
			altered := newWorkspace(t, cli, reg, caFile, emu, r.current, map[string]string{".terraform.lock.hcl": string(lock)})
			altered.setEnv("TF_CLI_CONFIG_FILE", cfg)
			zips, _ := filepath.Glob(filepath.Join(mirror, "*", "*", "*", "*.zip"))
			if len(zips) != 1 {
				t.Fatalf("the mirror holds %v, want one archive", zips)
			}
			orig, err := os.ReadFile(zips[0])
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.WriteFile(zips[0], orig, 0o600) })
			if err := os.WriteFile(zips[0], withAlteredProvider(t, orig), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := altered.run("init", "-no-color", "-input=false"); err == nil || !regexp.MustCompile(`(?i)checksum`).MatchString(out) {
				t.Fatalf("%s init accepted an archive the lock file does not list (err %v):\n%s", altered.name, err, out)
			}
		})
	}
}

// setEnv sets one variable of the CLI's environment, in place of the one the workspace has.
func (w *workspace) setEnv(name, value string) {
	env := w.env[:0:0]
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	w.env = append(env, name+"="+value)
}

// writeCLIConfig writes a CLI configuration that installs every provider from the mirror
// folder and nothing from anywhere else (no direct installation: the registry is never
// asked), as on a machine without network.
func writeCLIConfig(t *testing.T, path, mirror string) {
	t.Helper()
	cfg := "provider_installation {\n  filesystem_mirror {\n    path = \"" + mirror + "\"\n  }\n}\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// withAlteredProvider is the zip archive with one byte added to each file in it.
func withAlteredProvider(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(append(content, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
