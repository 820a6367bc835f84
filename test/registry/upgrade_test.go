package registry

import (
	"errors"
	"os/exec"
	"path/filepath"
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

// TestUpgrade: state that the previous release wrote (quickstart and team objects),
// then `init -upgrade` to the current release: the plan is empty and every resource
// keeps its ID. A resource whose schema lost an attribute or changed one's type without
// a new schema version fails the test (the framework would then refuse the old state).
func TestUpgrade(t *testing.T) {
	r := needReleases(t)
	reg, caFile := Start(t, namespace, typeName, r.key, r.other)
	reg.Add(r.load(t, r.previous))
	reg.Add(r.load(t, r.current))
	emu := startReleasedEmulator(t, r)
	for _, cli := range r.clis {
		t.Run(filepath.Base(cli), func(t *testing.T) {
			w := newWorkspace(t, cli, reg, caFile, emu, "= "+r.previous, map[string]string{"team.tf": teamConfig})
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

			out, err := w.run("plan", "-no-color", "-input=false", "-detailed-exitcode")
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.ExitCode() == 2 {
				t.Fatalf("%s plans changes after upgrading v%s -> v%s:\n%s", w.name, r.previous, r.current, out)
			} else if err != nil {
				t.Fatalf("%s plan after the upgrade: %v\n%s", w.name, err, out)
			}
			// An apply writes the state through the new version's upgraders; nothing may change.
			out = w.must("apply", "-no-color", "-input=false", "-auto-approve")
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
			w.must("destroy", "-no-color", "-input=false", "-auto-approve")
		})
	}
}
