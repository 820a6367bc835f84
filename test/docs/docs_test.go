// Package docs runs the documentation as a reader copying it would: every
// configuration block and every shell step of every page in docs/ and of README.md, with the
// provider built from this tree, against the emulator, on each CLI the page
// says it supports.
//
// How a page becomes runs (the rules are all here):
//
//  1. Blocks fenced as ```terraform or ```hcl are configuration; ```shell,
//     ```sh and ```bash blocks are steps; other blocks (text, console) are
//     output and are not run.
//
//  2. All configuration blocks of a page form one configuration, one file per
//     block (01.tf, 02.tf, ... by the block's place on the page), in a fresh
//     folder. A block of `list` blocks goes into NN.tfquery.hcl; a block whose
//     first line is a comment naming a file (`# tests/job.tftest.hcl`) is
//     written to that file.
//
//  3. Nothing is added for the provider's source: a page whose examples leave
//     out the `terraform` block shows that block once, fenced, marked for all of
//     its configurations (`config *`), as a reader copies it. A page generated from an
//     example folder (docs/resources/sandbox_file.md from
//     examples/resources/e2b_sandbox_file/) gets the files that folder ships
//     beside its configuration (setup.sh, app/, a Dockerfile), which its
//     blocks read. Nothing else is added to a page's configuration.
//
//  4. Each file is used on the CLIs the compatibility table lists for what it
//     uses (as scripts/examples.sh decides it: functions, ephemeral resources,
//     write-only arguments, identity, actions, destroy-time triggers (Terraform 1.16),
//     `lifecycle { destroy = false }` (Terraform 1.16, OpenTofu 1.12), list blocks, mock providers);
//     on an older CLI it is left out and the rest is still validated. Each
//     configuration is validated on each CLI; a warning fails it, except the
//     one dev_overrides always prints. Its steps and applies run only on the
//     CLIs that take every one of its files.
//
//  5. A configuration's steps then run in order in one bash session (`set -eo
//     pipefail`), in the configuration's folder, with `terraform` and `tofu` on
//     PATH both meaning the CLI under test, E2B_* pointing at an emulator
//     started for the test, and the CLI configuration's dev_overrides pointing
//     at the fresh build; `apply` and `destroy` are approved, as the reader
//     would answer "yes". The folder holds links to this repository's go.mod,
//     go.sum, cmd/ and internal/, as a clone would, so `go run
//     ./cmd/e2b-emulator` runs as written. A step that uses `terraform query`
//     or `-invoke` runs only on Terraform 1.14+. Whatever the steps leave
//     running is killed with their process group.
//
//  6. The emulator's team starts with a volume, a secret and a webhook made
//     by the test (seedConfig), as a team reading the import guide has.
//
//  8. A ```yaml block is a GitHub Actions workflow, written to the file its `file`
//     annotation names. It must be valid YAML; its jobs' `run` steps then run after the
//     page's steps, in order, in the job's working-directory (relative to the folder that
//     holds .github), with the job's `env` (an expression such as ${{ secrets.E2B_API_KEY }}
//     keeps the test's value of the variable, or becomes a placeholder), RUNNER_TEMP and
//     GITHUB_OUTPUT set, and the provider installed by `terraform init` from a filesystem
//     mirror of the fresh build, as a released provider would be. `uses` steps (checkout, the
//     CLI's setup) are what the test's own folder and PATH already give; they are logged.
//
//  7. HTML comments right before a block (invisible on the rendered page)
//     change what happens to it, as the list below says.
//
// The annotations:
//
//	<!-- docs-run: skip REASON -->         not run; the test logs REASON
//	<!-- docs-run: config NAME[,NAME] -->  belongs to those configurations (alternatives
//	                                       on one page that reuse addresses); `*`: to all
//	<!-- docs-run: file PATH -->           written to PATH
//	<!-- docs-run: dir PATH -->            its configuration lives in PATH below the work
//	                                       folder (for path.module/..)
//	<!-- docs-run: env NAME=VALUE -->      set for the steps (a CI variable)
//	<!-- docs-run: apply -->               its configuration is applied, planned (the plan
//	                                       must be empty) and destroyed
//	<!-- docs-run: copy PATH -->           the repository folder PATH (a module the page
//	                                       links to) is copied in first
//	<!-- docs-run: write PATH              a file the page asks the reader to have (the code
//	content                                under test, an app folder); PATH is relative to
//	-->                                    the configuration folder
//
// The CLIs are E2B_DOCS_CLIS (paths separated by ':'); without it the test
// skips, so the gotest stage leaves it to its own stage (scripts/test.sh
// docs-run), which names OpenTofu, the installed Terraform and Terraform 1.16.3.
package docs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// block is one fenced block of a page with the annotations before it.
type block struct {
	lang, text string
	line       int // of the opening fence
	skip       string
	configs    []string
	file, dir  string
	apply      bool
	env        []string
	writes     map[string]string
	copies     []string
}

func (b block) isConfig() bool { return b.lang == "terraform" || b.lang == "hcl" }
func (b block) isStep() bool   { return b.lang == "shell" || b.lang == "sh" || b.lang == "bash" }

// isWorkflow: a CI workflow file (GitHub Actions YAML) the page gives to copy.
func (b block) isWorkflow() bool { return b.lang == "yaml" || b.lang == "yml" }

var (
	fenceRE     = regexp.MustCompile("^```([a-z]*)\\s*$")
	annotRE     = regexp.MustCompile(`^<!-- docs-run: (\w[\w-]*)\s*(.*?)\s*(-->)?$`)
	fileNameRE  = regexp.MustCompile(`^#\s*([\w./-]+\.(?:tf|hcl))\s*$`)
	listBlockRE = regexp.MustCompile(`(?m)^list "`)
)

// parsePage reads a page's blocks and their annotations.
func parsePage(t *testing.T, path string) []block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		blocks  []block
		pending block
		lines   = strings.Split(string(data), "\n")
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := annotRE.FindStringSubmatch(line); m != nil {
			verb, arg := m[1], m[2]
			switch verb {
			case "skip":
				pending.skip = arg
			case "config":
				pending.configs = append(pending.configs, strings.Split(arg, ",")...)
			case "file":
				pending.file = arg
			case "dir":
				pending.dir = arg
			case "apply":
				pending.apply = true
			case "env":
				pending.env = append(pending.env, arg)
			case "copy":
				pending.copies = append(pending.copies, arg)
			case "write":
				if m[3] != "" {
					t.Fatalf("%s:%d: a write annotation holds the file's lines up to a line `-->`", path, i+1)
				}
				var content []string
				for i++; i < len(lines) && lines[i] != "-->"; i++ {
					content = append(content, lines[i])
				}
				if pending.writes == nil {
					pending.writes = map[string]string{}
				}
				pending.writes[arg] = strings.Join(content, "\n") + "\n"
			default:
				t.Fatalf("%s:%d: unknown docs-run annotation %q", path, i+1, verb)
			}
			continue
		}
		m := fenceRE.FindStringSubmatch(line)
		if m == nil || m[1] == "" {
			continue
		}
		b := pending
		pending = block{}
		b.lang, b.line = m[1], i+1
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		b.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks
}

// configuration is what a reader assembles from one page.
type configuration struct {
	workflows []block // GitHub Actions workflow files (rule 8)
	name      string
	dir       string
	files     map[string]string // path (relative to dir) -> content
	writes    map[string]string
	steps     []block
	env       []string
	apply     bool
	copies    []string
}

const providerSource = `terraform {
  required_providers {
    e2b = {
      source = "e2b-terraform/e2b"
    }
  }
}
`

// assemble turns a page's blocks into configurations (rules 2, 3 and 6).
func assemble(t *testing.T, page string, blocks []block) []*configuration {
	t.Helper()
	byName := map[string]*configuration{}
	var order []string
	get := func(name string) *configuration {
		if c, ok := byName[name]; ok {
			return c
		}
		c := &configuration{name: name, files: map[string]string{}, writes: map[string]string{}}
		byName[name] = c
		order = append(order, name)
		return c
	}
	var everywhere []block
	for i, b := range blocks {
		if b.skip != "" {
			t.Logf("%s:%d: %s block not run: %s", page, b.line, b.lang, b.skip)
			continue
		}
		if !b.isConfig() && !b.isStep() && !b.isWorkflow() {
			continue
		}
		names := b.configs
		if len(names) == 0 {
			names = []string{"main"}
		}
		if names[0] == "*" {
			everywhere = append(everywhere, b)
			continue
		}
		for _, n := range names {
			addBlock(get(n), i, b)
		}
	}
	if len(order) == 0 {
		get("main")
	}
	for _, b := range everywhere {
		for _, n := range order {
			addBlock(byName[n], -1, b)
		}
	}
	configs := make([]*configuration, 0, len(order))
	for _, n := range order {
		configs = append(configs, byName[n])
	}
	return configs
}

func addBlock(c *configuration, index int, b block) {
	if b.dir != "" {
		c.dir = b.dir
	}
	if b.apply {
		c.apply = true
	}
	c.env = append(c.env, b.env...)
	c.copies = append(c.copies, b.copies...)
	for p, content := range b.writes {
		c.writes[p] = content
	}
	if b.isStep() {
		c.steps = append(c.steps, b)
		return
	}
	if b.isWorkflow() {
		c.workflows = append(c.workflows, b)
		return
	}
	name := b.file
	first, _, _ := strings.Cut(b.text, "\n")
	switch {
	case name != "":
	case fileNameRE.MatchString(first):
		name = fileNameRE.FindStringSubmatch(first)[1]
	case index < 0:
		name = fmt.Sprintf("shared_%02d.tf", b.line)
	case listBlockRE.MatchString(b.text):
		name = fmt.Sprintf("%02d.tfquery.hcl", index+1)
	default:
		name = fmt.Sprintf("%02d.tf", index+1)
	}
	c.files[name] = b.text
}

// cli is one OpenTofu or Terraform binary with its version.
type cli struct {
	path, name   string // name as `version` prints it: "OpenTofu v1.12.6"
	tofu         bool
	major, minor int
}

func findCLIs(t *testing.T) []cli {
	t.Helper()
	var clis []cli
	for _, p := range strings.Split(os.Getenv("E2B_DOCS_CLIS"), ":") {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("E2B_DOCS_CLIS names %s: %v", p, err)
		}
		cmd := exec.Command(p, "version")
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s version: %v", p, err)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		c := cli{path: p, name: first, tofu: strings.HasPrefix(first, "OpenTofu")}
		if _, err := fmt.Sscanf(first[strings.Index(first, " v")+2:], "%d.%d", &c.major, &c.minor); err != nil {
			t.Fatalf("%s: cannot read a version from %q", p, first)
		}
		clis = append(clis, c)
	}
	return clis
}

// version is major*100+minor; none means OpenTofu has the feature in no version.
const none = 1 << 20

// needs gives the oldest OpenTofu and Terraform whose features text uses, as
// the compatibility table (and scripts/examples.sh) give them.
func needs(name, text string) (tofu, tf int) {
	tofu, tf = 106, 100
	raise := func(o, t int) { tofu, tf = max(tofu, o), max(tf, t) }
	has := func(re string) bool { return regexp.MustCompile(re).MatchString(text) }
	if has(`provider::e2b::`) {
		raise(107, 108)
	}
	if has(`(?m)^ephemeral "`) {
		raise(111, 110)
	}
	if has(`_wo\s*=`) {
		raise(111, 111)
	}
	if has(`(?m)^\s*identity\s*=`) {
		raise(112, 112)
	}
	if has(`(?m)^\s*mock_provider "`) {
		raise(108, 107)
	}
	if has(`(?m)^action "|action_trigger|terraform query|-invoke[ =]`) || strings.HasSuffix(name, ".tfquery.hcl") {
		raise(none, 114)
	}
	if has(`before_destroy|after_destroy`) {
		raise(none, 116)
	}
	if has(`(?m)^\s*destroy\s*=\s*false`) {
		raise(112, 116)
	}
	return tofu, tf
}

func (c cli) supports(name, text string) bool {
	tofu, tf := needs(name, text)
	want := tf
	if c.tofu {
		want = tofu
	}
	return c.major*100+c.minor >= want
}

func TestDocsRun(t *testing.T) {
	if os.Getenv("TF_ACC") == "" || os.Getenv("E2B_DOCS_CLIS") == "" {
		t.Skip("set TF_ACC=1 and E2B_DOCS_CLIS=cli:cli:... to run the docs on those CLIs against the emulator (its own stage: scripts/test.sh docs-run)")
	}
	root := harness.RepoRoot(t)
	clis := findCLIs(t)
	for _, c := range clis {
		t.Logf("CLI: %s (%s)", c.name, c.path)
	}
	provDir := harness.ProviderDir(t)
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seedTeam(t, clis[0], srv, provDir)

	var pages []string
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		t.Run(strings.TrimSuffix(rel, ".md"), func(t *testing.T) {
			blocks := parsePage(t, p)
			configs := assemble(t, rel, blocks)
			shipped := exampleFiles(t, root, rel)
			for _, c := range configs {
				if !hasRequiredProviders(c) && usesProvider(c) {
					t.Errorf("%s [%s]: uses the e2b provider without a required_providers block naming its "+
						"source; a reader copying the page gets hashicorp/e2b: show the terraform block", rel, c.name)
					continue
				}
				for name, content := range shipped {
					if _, ok := c.writes[name]; !ok {
						c.writes[name] = content
					}
				}
				for _, cl := range clis {
					runConfiguration(t, rel, c, cl, srv, provDir, root)
				}
			}
		})
	}
}

func hasRequiredProviders(c *configuration) bool {
	for _, text := range c.files {
		if strings.Contains(text, "required_providers") {
			return true
		}
	}
	return false
}

// usesProvider tells whether a configuration has e2b resources, data sources or the like.
func usesProvider(c *configuration) bool {
	for name, text := range c.files {
		if !strings.HasSuffix(name, ".tftest.hcl") && regexp.MustCompile(`(?m)^\s*(resource|data|ephemeral|action|list|provider) "e2b`).MatchString(text) {
			return true
		}
	}
	return false
}

// exampleFiles are the files beside the configuration in the example folder a
// generated page comes from (rule 3): docs/KIND/NAME.md <- examples/KIND/e2b_NAME.
func exampleFiles(t *testing.T, root, page string) map[string]string {
	t.Helper()
	kind, name := filepath.Base(filepath.Dir(page)), strings.TrimSuffix(filepath.Base(page), ".md")
	dir := filepath.Join(root, "examples", kind, "e2b_"+name)
	files := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil //nolint:nilerr // a page without an example folder gets nothing
		}
		if filepath.Ext(p) == ".tf" || filepath.Base(p) == "import.sh" || strings.HasSuffix(p, ".tfquery.hcl") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return nil
	})
	return files
}

// seedConfig is what a team already has when it reads the import guide (rule 7).
const seedConfig = providerSource + `
resource "e2b_volume" "seed" {
  name = "docs-run-seed"
}

resource "e2b_secret" "seed" {
  name            = "docs-run-seed"
  sensitive_value = "not-a-real-secret"
}

resource "e2b_webhook" "seed" {
  name                       = "docs-run-seed"
  url                        = "http://127.0.0.1:9/hook?token=not-a-real-token"
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "not-a-real-signing-secret"
}
`

// seedTeam gives the emulator's team a volume, a secret and a webhook made
// outside the pages, so the pages that list or adopt what exists meet objects.
func seedTeam(t *testing.T, cl cli, srv *emulator.Server, provDir string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.tf"), seedConfig)
	rc := filepath.Join(dir, ".cli.tfrc")
	writeFile(t, rc, fmt.Sprintf("provider_installation {\n  dev_overrides {\n"+
		"    \"registry.terraform.io/%[1]s\" = %[2]q\n    \"registry.opentofu.org/%[1]s\" = %[2]q\n"+
		"  }\n  direct {}\n}\n", harness.ProviderAddress, provDir))
	cmd := exec.Command(cl.path, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1",
		"E2B_API_KEY="+srv.APIKey(), "E2B_API_URL="+srv.APIURL(), "E2B_SANDBOX_URL="+srv.SandboxURL())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seeding the emulator's team: %v\n%s", err, out)
	}
}

// runConfiguration validates one configuration on one CLI and runs its steps.
func runConfiguration(t *testing.T, page string, c *configuration, cl cli, srv *emulator.Server, provDir, root string) {
	t.Helper()
	label := fmt.Sprintf("%s [%s] on %s", page, c.name, cl.name)
	work := t.TempDir()
	dir := filepath.Join(work, c.dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, from := range c.copies {
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, from))); err != nil {
			t.Fatalf("copy %s: %v", from, err)
		}
	}
	var kept, left []string
	hasTF := false
	for name, text := range c.files {
		if !cl.supports(name, text) {
			left = append(left, name)
			continue
		}
		kept = append(kept, name)
		if !strings.HasPrefix(name, "shared_") && name != "provider_source.tf" {
			hasTF = true
		}
		writeFile(t, filepath.Join(dir, name), text)
	}
	for name, text := range c.writes {
		writeFile(t, filepath.Join(dir, name), text)
	}
	if !hasTF && (len(c.steps) == 0 || len(left) > 0) {
		t.Logf("--   %s: not listed for it", label)
		return
	}
	sort.Strings(left)
	note := ""
	if len(left) > 0 {
		note = fmt.Sprintf(" (without %s: not listed for it)", strings.Join(left, ", "))
	}
	rc := filepath.Join(work, ".cli.tfrc")
	writeFile(t, rc, fmt.Sprintf("provider_installation {\n  dev_overrides {\n"+
		"    \"registry.terraform.io/%[1]s\" = %[2]q\n    \"registry.opentofu.org/%[1]s\" = %[2]q\n"+
		"  }\n  direct {}\n}\n", harness.ProviderAddress, provDir))
	shims := filepath.Join(work, ".bin")
	if err := os.MkdirAll(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"terraform", "tofu"} {
		if err := os.Symlink(cl.path, filepath.Join(shims, n)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"go.mod", "go.sum", "cmd", "internal"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join(root, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"TF_CLI_CONFIG_FILE=" + rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"E2B_API_KEY=" + srv.APIKey(), "E2B_API_URL=" + srv.APIURL(), "E2B_SANDBOX_URL=" + srv.SandboxURL(),
		"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"),
		// The same build cache entries whichever temporary folder a step builds in
		// (without -trimpath, Go keys a package's build on its directory).
		"GOFLAGS=-trimpath",
		// Plain text in the steps' output, which the test prints on failure.
		// The reader answers "yes" when apply or destroy asks.
		"TF_CLI_ARGS_plan=-no-color", "TF_CLI_ARGS_apply=-no-color -auto-approve", "TF_CLI_ARGS_destroy=-no-color -auto-approve",
		"TF_CLI_ARGS_test=-no-color", "TF_CLI_ARGS_query=-no-color",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "E2B_") || k == "PATH" || k == "CHECKPOINT_DISABLE" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, c.env...)
	run := func(timeout time.Duration, name string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		// A file, not a pipe: a process the steps leave in the background would
		// hold a pipe open, and the run would wait for it.
		log, err := os.CreateTemp(work, "output-")
		if err != nil {
			t.Fatal(err)
		}
		defer log.Close()
		cmd.Stdout, cmd.Stderr = log, log
		err = cmd.Run()
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the steps left running
		}
		out, _ := os.ReadFile(log.Name())
		return stripOverrideWarning(string(out)), err
	}

	if len(kept) > 0 {
		query := []string{}
		for _, n := range kept {
			if strings.HasSuffix(n, ".tfquery.hcl") {
				query = []string{"-query"}
			}
		}
		out, err := run(2*time.Minute, cl.path, append([]string{"validate", "-no-color"}, query...)...)
		if err != nil || strings.Contains(out, "Warning:") {
			t.Errorf("FAIL %s: validate%s\n%s", label, note, indent(out))
			return
		}
		t.Logf("ok   %s: validate%s", label, note)
	}
	if len(left) > 0 && (c.apply || len(c.steps) > 0) {
		t.Logf("--   %s: steps not run: not every block is listed for it", label)
		return
	}
	if c.apply {
		for _, args := range [][]string{
			{"apply", "-auto-approve", "-input=false", "-no-color"},
			{"plan", "-detailed-exitcode", "-input=false", "-no-color"},
			{"destroy", "-auto-approve", "-input=false", "-no-color"},
		} {
			if out, err := run(3*time.Minute, cl.path, args...); err != nil {
				t.Errorf("FAIL %s: %s\n%s", label, args[0], indent(out))
				return
			}
		}
		t.Logf("ok   %s: apply, empty plan, destroy", label)
	}
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	ran := 0
	for _, s := range c.steps {
		if !cl.supports("", s.text) {
			t.Logf("--   %s: step at line %d not listed for it", label, s.line)
			continue
		}
		fmt.Fprintf(&script, "# %s:%d\n%s", page, s.line, s.text)
		ran++
	}
	for _, wf := range c.workflows {
		steps := workflowSteps(t, page, wf, dir, mirrorConfig(t, work, provDir), label)
		script.WriteString(steps)
		ran++
	}
	if ran == 0 {
		return
	}
	scriptPath := filepath.Join(work, ".steps.sh")
	writeFile(t, scriptPath, script.String())
	out, err := run(4*time.Minute, "bash", scriptPath)
	if err != nil {
		t.Errorf("FAIL %s: steps: %v\n%s", label, err, indent(tail(out, 60)))
		return
	}
	t.Logf("ok   %s: %d steps", label, ran)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stripOverrideWarning drops the warning every run with dev_overrides prints
// (from its first line to the one that ends "releases.", as scripts/examples.sh does).
func stripOverrideWarning(out string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "Provider development overrides are in effect"):
			in = true
		case in:
			in = !strings.HasSuffix(strings.TrimSpace(line), "releases.")
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return s
	}
	return "...\n" + strings.Join(lines[len(lines)-n:], "\n")
}

func indent(s string) string {
	return "     " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n     ")
}
