package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// teamConfig adds the team's long-lived objects to the quickstart; all of them apply
// offline against the emulator (the webhook points at a closed local port).
const teamConfig = `
resource "e2b_volume" "cache" {
  name = "install-test-cache"
}

resource "e2b_secret" "token" {
  name          = "install-test-token"
  value         = "not-a-real-token"
  value_version = 1
}

resource "e2b_webhook" "lifecycle" {
  name                       = "install-test-hooks"
  url                        = "http://127.0.0.1:9/e2b"
  events                     = ["sandbox.lifecycle.created"]
  sensitive_signature_secret = "not-a-real-secret"
}
`

// TestUpgrade: state that the previous release wrote (the quickstart, the team objects, the
// examples that apply offline, and testdata/upgrade: every resource type with the options a
// user's state carries), then
// `init -upgrade` to the current release: the plan is empty and every resource keeps its ID.
// A resource whose schema lost an attribute or changed one's type without a new schema
// version fails the test (the framework would then refuse the old state), and so does one
// the new version would update or replace. That the check can fail is shown on the same
// workspace at the end: a state the new version reads differently plans a replacement, and
// the check reports it.
func TestUpgrade(t *testing.T) {
	r := needReleases(t)
	reg, caFile := Start(t, namespace, typeName, r.key, r.other)
	reg.Add(r.load(t, r.previous))
	reg.Add(r.load(t, r.current))
	emu := startReleasedEmulator(t, r)
	for _, cli := range r.clis {
		t.Run(filepath.Base(cli), func(t *testing.T) {
			w := newWorkspace(t, cli, reg, caFile, emu, "= "+r.previous, map[string]string{"team.tf": teamConfig})
			if err := os.CopyFS(w.dir, os.DirFS("testdata/upgrade")); err != nil {
				t.Fatal(err)
			}
			w.addExamples(reg, upgradeExamples)
			w.must("init", "-no-color", "-input=false")
			if got := w.lockedVersion(reg); got != r.previous {
				t.Fatalf(".terraform.lock.hcl records %s, want %s", got, r.previous)
			}
			before := parseSchemas(t, w.must("providers", "schema", "-json"), reg.Source())
			w.destroyOnFailure()
			w.must("apply", "-no-color", "-input=false", "-auto-approve")
			ids := w.resources()
			t.Logf("%s applied with v%s: %d resources", w.name, r.previous, len(ids))

			w.setConstraint(reg, ">= "+r.previous)
			w.must("init", "-no-color", "-input=false", "-upgrade")
			if got := w.lockedVersion(reg); got != r.current {
				t.Fatalf("after init -upgrade .terraform.lock.hcl records %s, want %s", got, r.current)
			}
			after := parseSchemas(t, w.must("providers", "schema", "-json"), reg.Source())
			for _, problem := range schemaChanges(t, before, after) {
				t.Errorf("v%s -> v%s: %s", r.previous, r.current, problem)
			}

			if changes := w.plannedChanges(); changes != "" {
				t.Fatalf("%s plans changes after upgrading v%s -> v%s:\n%s", w.name, r.previous, r.current, changes)
			}
			// An apply writes the state through the new version's upgraders; nothing may change.
			out := w.must("apply", "-no-color", "-input=false", "-auto-approve")
			if !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
				t.Fatalf("%s apply after the upgrade changed something:\n%s", w.name, out)
			}
			for addr, id := range w.resources() {
				if ids[addr] != id {
					t.Errorf("%s: id %s before the upgrade, %s after", addr, ids[addr], id)
				}
				delete(ids, addr)
			}
			for addr := range ids {
				t.Errorf("%s left state in the upgrade", addr)
			}

			// The check above fails when the new version would replace something: here the
			// state holds another template for a sandbox than its configuration (as a state
			// upgrader that lost or renamed a value would leave it).
			w.setStateAttribute("e2b_sandbox.full", "template", "base-before-upgrade")
			changes := w.plannedChanges()
			if !regexp.MustCompile(`e2b_sandbox\.full must be replaced`).MatchString(changes) {
				t.Errorf("%s: the upgrade check does not report a sandbox the new version would replace; it says:\n%s", w.name, changes)
			}
			w.must("destroy", "-no-color", "-input=false", "-auto-approve")
		})
	}
}

// upgradeExamples are the folders of examples/resources that apply offline against the
// emulator with the previous release, each with the inputs it needs. The others install
// packages from the internet (e2b_sandbox_command, e2b_snapshot, e2b_template), use options
// newer than the release (e2b_sandbox's snapshot_on_destroy) or declare the provider
// themselves (e2b_secret); testdata/upgrade covers their types.
var upgradeExamples = map[string]string{
	"e2b_sandbox_file":   "",
	"e2b_sandbox_folder": "",
	"e2b_template_tag":   "",
	"e2b_volume":         "",
	"e2b_volume_file":    "",
	"e2b_webhook":        `webhook_secret = "not-a-real-secret"`,
}

// addExamples copies example folders into the workspace, each a module of the root one that
// takes the provider from the registry under test (import blocks, which only a root module
// may hold, are left out).
func (w *workspace) addExamples(reg *Server, examples map[string]string) {
	w.t.Helper()
	root := repoRoot(w.t)
	var modules strings.Builder
	for name, inputs := range examples {
		dir := filepath.Join(w.dir, "examples", name)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "examples", "resources", name))); err != nil {
			w.t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "import-by-identity.tf")); err != nil && !os.IsNotExist(err) {
			w.t.Fatal(err)
		}
		w.write(filepath.Join("examples", name, "versions.tf"), fmt.Sprintf(
			"terraform {\n  required_providers {\n    e2b = { source = %q }\n  }\n}\n", reg.Source()))
		fmt.Fprintf(&modules, "module %q {\n  source = \"./examples/%s\"\n  %s\n}\n\n", name, name, inputs)
	}
	w.write("examples.tf", modules.String())
}

// plannedChanges is the plan's output when it would change anything, "" when it would not.
func (w *workspace) plannedChanges() string {
	w.t.Helper()
	out, err := w.run("plan", "-no-color", "-input=false", "-detailed-exitcode")
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return out
	case err != nil:
		w.t.Fatalf("%s plan: %v\n%s", w.name, err, out)
	}
	return ""
}

// setStateAttribute changes one attribute of a resource in the workspace's state, through
// `state pull` and `state push`.
func (w *workspace) setStateAttribute(address, attr string, value any) {
	w.t.Helper()
	var state map[string]any
	if err := json.Unmarshal([]byte(w.must("state", "pull")), &state); err != nil {
		w.t.Fatal(err)
	}
	typ, name, _ := strings.Cut(address, ".")
	found := false
	for _, r := range state["resources"].([]any) {
		res := r.(map[string]any)
		if res["type"] != typ || res["name"] != name {
			continue
		}
		for _, inst := range res["instances"].([]any) {
			inst.(map[string]any)["attributes"].(map[string]any)[attr] = value
			found = true
		}
	}
	if !found {
		w.t.Fatalf("%s is not in the state", address)
	}
	state["serial"] = state["serial"].(float64) + 1
	raw, err := json.Marshal(state)
	if err != nil {
		w.t.Fatal(err)
	}
	w.write("changed.tfstate", string(raw))
	w.must("state", "push", "changed.tfstate")
}
