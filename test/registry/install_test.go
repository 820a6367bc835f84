package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

const (
	namespace = "e2b-terraform"
	typeName  = "e2b"
)

// TestInstall: each CLI installs the current release from the registry by its source
// address, checks it against SHA256SUMS and the signature, records it in the lock file,
// applies the quickstart against the released emulator and destroys it.
func TestInstall(t *testing.T) {
	r := needReleases(t)
	reg, caFile := Start(t, namespace, typeName, r.key, r.other)
	reg.Add(r.load(t, r.current))
	emu := startReleasedEmulator(t, r)
	for _, cli := range r.clis {
		t.Run(filepath.Base(cli), func(t *testing.T) {
			w := newWorkspace(t, cli, reg, caFile, emu, "~> "+r.current, nil)
			out := w.must("init", "-no-color", "-input=false")
			t.Logf("%s init:\n%s", w.name, out)
			want := regexp.MustCompile(`Installed ` + regexp.QuoteMeta(reg.Source()) + ` v` +
				regexp.QuoteMeta(r.current) + ` \((signed|self-signed)[^)]*key ID ` + r.key.ID + `\)`)
			if !want.MatchString(out) {
				t.Fatalf("%s init does not say it installed v%s signed with key %s:\n%s", w.name, r.current, r.key.ID, out)
			}
			if got := w.lockedVersion(reg); got != r.current {
				t.Fatalf(".terraform.lock.hcl records %s, want %s", got, r.current)
			}
			w.destroyOnFailure()
			w.must("apply", "-no-color", "-input=false", "-auto-approve")
			var outputs struct {
				ExitCode struct{ Value int } `json:"report_exit_code"`
				Report   struct{ Value string }
			}
			if err := json.Unmarshal([]byte(w.must("output", "-json")), &outputs); err != nil {
				t.Fatal(err)
			}
			if outputs.ExitCode.Value != 0 || !strings.Contains(outputs.Report.Value, "Hello, E2B!") {
				t.Fatalf("the quickstart's command: exit %d, output %q", outputs.ExitCode.Value, outputs.Report.Value)
			}
			w.must("destroy", "-no-color", "-input=false", "-auto-approve")
		})
	}
}

// TestInstallRefusesAlteredRelease: an archive whose bytes changed, a signature that
// does not match SHA256SUMS, and signing keys that did not sign it each make `init`
// fail with the CLI's own error, and nothing is installed.
func TestInstallRefusesAlteredRelease(t *testing.T) {
	r := needReleases(t)
	reg, caFile := Start(t, namespace, typeName, r.key, r.other)
	reg.Add(r.load(t, r.current))
	archive := r.load(t, r.current).Archives[runtime.GOOS+"_"+runtime.GOARCH]
	sum := r.load(t, r.current).Shasums[archive]
	// The CLIs' own messages (Terraform's internal/getproviders and OpenTofu's fork of it),
	// with line breaks folded; OpenTofu prefixes the signature errors with
	// "the provider is not signed with a valid signing key".
	faults := []struct {
		name  string
		fault Fault
		want  *regexp.Regexp
	}{
		{"altered archive", AlteredArchive,
			regexp.MustCompile(`Error while installing .*: archive has incorrect checksum zh:[0-9a-f]{64} \(expected zh:` + sum + `\)`)},
		{"altered signature", AlteredSignature,
			regexp.MustCompile(`Error while installing .*error checking signature: openpgp: invalid signature`)},
		{"other key", OtherKey,
			regexp.MustCompile(`Error while installing .*authentication signature from unknown issuer`)},
	}
	for _, cli := range r.clis {
		for _, f := range faults {
			t.Run(filepath.Base(cli)+"/"+f.name, func(t *testing.T) {
				reg.SetFault(f.fault)
				defer reg.SetFault(Honest)
				w := newWorkspace(t, cli, reg, caFile, emulator{}, "~> "+r.current, nil)
				out, err := w.run("init", "-no-color", "-input=false")
				if err == nil {
					t.Fatalf("%s init succeeded with an %s:\n%s", w.name, f.name, out)
				}
				if !f.want.MatchString(strings.Join(strings.Fields(out), " ")) {
					t.Fatalf("%s init failed, but not with %q:\n%s", w.name, f.want, out)
				}
				t.Logf("%s, %s:\n%s", w.name, f.name, errorLines(out))
				if _, err := os.Stat(filepath.Join(w.dir, ".terraform.lock.hcl")); err == nil {
					t.Fatalf("%s wrote a lock file after refusing the provider", w.name)
				}
			})
		}
	}
}

// errorLines keeps the "Error:" paragraph of a CLI's output, for the log.
func errorLines(out string) string {
	if i := strings.Index(out, "Error:"); i >= 0 {
		return out[i:]
	}
	return out
}
