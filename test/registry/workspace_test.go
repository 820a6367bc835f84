package registry

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// releases is what scripts/install.sh built: two goreleaser releases and the keys.
type releases struct {
	dir               string
	previous, current string
	key, other        Key
	clis              []string
}

// needReleases skips unless scripts/install.sh (the install stage) runs the test.
func needReleases(t *testing.T) releases {
	t.Helper()
	dir := os.Getenv("E2B_RELEASE_DIR")
	if dir == "" {
		t.Skip("needs signed goreleaser releases and the CLIs: run by scripts/install.sh (make test-install)")
	}
	r := releases{
		dir:      dir,
		previous: os.Getenv("E2B_RELEASE_PREVIOUS"),
		current:  os.Getenv("E2B_RELEASE_CURRENT"),
		key:      readKey(t, os.Getenv("E2B_RELEASE_KEY"), os.Getenv("E2B_RELEASE_KEY_ID")),
		other:    readKey(t, os.Getenv("E2B_RELEASE_OTHER_KEY"), os.Getenv("E2B_RELEASE_OTHER_KEY_ID")),
		clis:     filepath.SplitList(os.Getenv("E2B_RELEASE_CLIS")),
	}
	if r.previous == "" || r.current == "" || len(r.clis) == 0 {
		t.Fatal("E2B_RELEASE_PREVIOUS, E2B_RELEASE_CURRENT and E2B_RELEASE_CLIS must be set with E2B_RELEASE_DIR")
	}
	return r
}

func readKey(t *testing.T, file, id string) Key {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil || len(id) < 16 {
		t.Fatalf("signing key %q with ID %q: %v", file, id, err)
	}
	return Key{ID: strings.ToUpper(id[len(id)-16:]), Armor: string(b)}
}

func (r releases) load(t *testing.T, version string) *Release {
	t.Helper()
	rel, err := LoadRelease(filepath.Join(r.dir, version), version)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// cliName is "Terraform v1.11.4" or "OpenTofu v1.12.6".
func cliName(t *testing.T, cli string) string {
	t.Helper()
	cmd := exec.Command(cli, "version")
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", cli, err)
	}
	name := versionLine.FindString(string(out))
	if name == "" {
		t.Fatalf("%s version says neither Terraform nor OpenTofu:\n%s", cli, out)
	}
	return name
}

var versionLine = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v\S+`)

// emulator is the released e2b-emulator, running.
type emulator struct{ env []string }

// startReleasedEmulator installs the emulator as a user would from the release: the
// archive for this platform, checked against the .sha256 file beside it, unpacked, run.
func startReleasedEmulator(t *testing.T, r releases) emulator {
	t.Helper()
	name := fmt.Sprintf("e2b-emulator_%s_%s_%s.tar.gz", r.current, runtime.GOOS, runtime.GOARCH)
	archive := filepath.Join(r.dir, r.current, name)
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sumLine, err := os.ReadFile(archive + ".sha256")
	if err != nil {
		t.Fatalf("the release has no checksum beside %s: %v", name, err)
	}
	got := sha256.Sum256(b)
	if want := fmt.Sprintf("%s  %s\n", hex.EncodeToString(got[:]), name); string(sumLine) != want {
		t.Fatalf("%s.sha256 is %q, want %q", name, sumLine, want)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "e2b-emulator")
	if err := untarFile(b, "e2b-emulator", bin); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	envFile := filepath.Join(dir, "e2b.env")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-quiet", "-env-file", envFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		content, err := os.ReadFile(envFile)
		if err == nil && len(content) > 0 {
			var env []string
			for _, line := range strings.Split(strings.TrimSpace(string(content)), "\n") {
				if strings.HasPrefix(line, "E2B_") {
					env = append(env, line)
				}
			}
			return emulator{env: env}
		}
		if time.Now().After(deadline) {
			t.Fatal("the released emulator wrote no env file within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func untarFile(archive []byte, name, dest string) error {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("no %s in the archive", name)
		}
		if err != nil {
			return err
		}
		if h.Name != name {
			continue
		}
		f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			_ = f.Close()
			return err
		}
		return f.Close()
	}
}

// workspace is one CLI working directory whose only provider source is the test registry.
type workspace struct {
	t    *testing.T
	cli  string
	name string // "Terraform v1.11.4"
	dir  string
	env  []string
}

// newWorkspace copies examples/quickstart (and the extra files) into a fresh directory,
// with the provider's source on reg and the given version constraint.
func newWorkspace(t *testing.T, cli string, reg *Server, caFile string, emu emulator, constraint string, extra map[string]string) *workspace {
	t.Helper()
	dir := t.TempDir()
	root := repoRoot(t)
	src := filepath.Join(root, "examples", "quickstart")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, cli: cli, name: cliName(t, cli), dir: dir}
	w.setConstraint(reg, constraint)
	for name, content := range extra {
		w.write(name, content)
	}
	// Only the registry under test: no plugin cache, no mirror, no other host.
	cfg := filepath.Join(t.TempDir(), "cli.tfrc")
	if err := os.WriteFile(cfg, []byte("provider_installation {\n  direct {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.env = []string{
		"TF_CLI_CONFIG_FILE=" + cfg,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
		"SSL_CERT_FILE=" + caFile, // the test's CA only
		"SSL_CERT_DIR=" + t.TempDir(),
	}
	w.env = append(w.env, emu.env...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "E2B_") || strings.HasPrefix(k, "SSL_") ||
			k == "CHECKPOINT_DISABLE" {
			continue
		}
		w.env = append(w.env, kv)
	}
	return w
}

var sourceLine = regexp.MustCompile(`(?m)^(\s*)source\s*=\s*"[^"]*e2b-terraform/e2b"\s*\n(\s*version\s*=.*\n)?`)

// setConstraint points main.tf's required_providers at reg with a version constraint.
func (w *workspace) setConstraint(reg *Server, constraint string) {
	w.t.Helper()
	path := filepath.Join(w.dir, "main.tf")
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	if !sourceLine.Match(b) {
		w.t.Fatalf("examples/quickstart/main.tf has no source = \"e2b-terraform/e2b\" line")
	}
	out := sourceLine.ReplaceAll(b, []byte(fmt.Sprintf("${1}source  = %q\n${1}version = %q\n", reg.Source(), constraint)))
	w.write("main.tf", string(out))
}

func (w *workspace) write(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the CLI (callers pass -no-color where the command takes it); it returns
// stdout and stderr together.
func (w *workspace) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.cli, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must runs the CLI and fails the test when it fails.
func (w *workspace) must(args ...string) string {
	w.t.Helper()
	out, err := w.run(args...)
	if err != nil {
		w.t.Fatalf("%s %s: %v\n%s", w.name, strings.Join(args, " "), err, out)
	}
	return out
}

// stateModule is a module of `show -json`'s state, with the modules it calls.
type stateModule struct {
	Resources []struct {
		Address string         `json:"address"`
		Values  map[string]any `json:"values"`
	} `json:"resources"`
	ChildModules []stateModule `json:"child_modules"`
}

// resources maps every resource address in state, in every module, to its id.
func (w *workspace) resources() map[string]string {
	w.t.Helper()
	var doc struct {
		Values struct {
			RootModule stateModule `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(w.must("show", "-json")), &doc); err != nil {
		w.t.Fatal(err)
	}
	ids := map[string]string{}
	var walk func(m stateModule)
	walk = func(m stateModule) {
		for _, r := range m.Resources {
			ids[r.Address] = fmt.Sprint(r.Values["id"])
		}
		for _, c := range m.ChildModules {
			walk(c)
		}
	}
	walk(doc.Values.RootModule)
	return ids
}

// destroyOnFailure destroys what the workspace applied when the test fails before its
// own destroy, so the next CLI's run on the same emulator does not meet its objects.
func (w *workspace) destroyOnFailure() {
	w.t.Cleanup(func() {
		if w.t.Failed() {
			if out, err := w.run("destroy", "-no-color", "-input=false", "-auto-approve"); err != nil {
				w.t.Logf("destroy after the failure: %v\n%s", err, out)
			}
		}
	})
}

// lockedVersion is the provider version .terraform.lock.hcl records.
func (w *workspace) lockedVersion(reg *Server) string {
	w.t.Helper()
	f, err := os.Open(filepath.Join(w.dir, ".terraform.lock.hcl"))
	if err != nil {
		w.t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "provider ") {
			in = strings.Contains(line, `"`+reg.Source()+`"`)
		}
		if v, ok := strings.CutPrefix(line, "version"); ok && in {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "=")), `"`)
		}
	}
	w.t.Fatalf(".terraform.lock.hcl has no version for %s", reg.Source())
	return ""
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}
