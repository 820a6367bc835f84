package provider

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// These tests run the provider binary under the CLI as a user does, because they look at what
// plugin-testing cannot show or do: the run's output (progress messages, warnings) and
// `terraform apply -invoke`.

// skipBelowTerraform skips unless the CLI is Terraform at least as new as every version given
// (OpenTofu has no actions).
func skipBelowTerraform(t *testing.T, ws *harness.Workspace, versions ...*version.Version) {
	t.Helper()
	got := cliVersion(t, ws)
	if strings.Contains(ws.Run(context.Background(), "version").Stdout, "OpenTofu") {
		t.Skipf("OpenTofu %s has no actions", got)
	}
	for _, want := range versions {
		if got.Core().LessThan(want) {
			t.Skipf("Terraform %s is older than %s", got, want)
		}
	}
}

// cliVersion is the version the workspace's CLI (Terraform or OpenTofu) reports.
func cliVersion(t *testing.T, ws *harness.Workspace) *version.Version {
	t.Helper()
	r := ws.Run(context.Background(), "version", "-json")
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("%s version -json: %v\n%s", ws.CLI, err, r.Output())
	}
	got, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

const cliProviderBlock = harness.RequiredProviders + `
provider "e2b" {}
`

// The destroy's output names the snapshot and its build. A failed snapshot does not stop
// `terraform destroy`, whatever on_failure says: Terraform 1.16 turns a destroy action's error
// into a warning in a destroy run ("a full destroy walk must never be blocked"); the output says
// the snapshot failed.
func TestCLISandboxSnapshotAction_reportsSnapshot(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	skipBelowTerraform(t, ws, tfversion.Version1_14_0, version1_16_0)
	ctx := context.Background()
	for _, fail := range []bool{false, true} {
		ws.Write("main.tf", cliProviderBlock+`
resource "e2b_sandbox" "dev" {
  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.e2b_sandbox_snapshot.keep]
      on_failure = halt
    }
  }
}

action "e2b_sandbox_snapshot" "keep" {
  config {
    sandbox_id = caller.id
    name       = "dev-workspace"
  }
}
`)
		if r := ws.Apply(ctx); r.Err != nil {
			t.Fatalf("apply: %v\n%s", r.Err, r.Output())
		}
		if fail {
			failSnapshots(emu)
		}
		r := ws.Destroy(ctx)
		emu.SetFaults(emulator.Faults{})
		if r.Err != nil {
			t.Fatalf("destroy (snapshot failing: %v): %v\n%s", fail, r.Err, r.Output())
		}
		out := r.Output()
		switch fail {
		case false:
			if !regexp.MustCompile(`Snapshot [a-z0-9-]+/dev-workspace:snap-[0-9a-f]+ of sandbox \w+ taken \(build [0-9a-f-]{36}, snapshot 1 of the name\)`).MatchString(out) ||
				!regexp.MustCompile(`template = "[a-z0-9-]+/dev-workspace"`).MatchString(out) {
				t.Fatalf("the destroy's output does not name the snapshot and its build:\n%s", out)
			}
		case true:
			if !strings.Contains(out, "Could not snapshot sandbox") || !strings.Contains(out, "Warning") {
				t.Fatalf("the destroy's output does not say the snapshot failed:\n%s", out)
			}
		}
		if alive := emu.SandboxIDs(); len(alive) != 0 {
			t.Fatalf("snapshot failing %v: alive %v after destroy", fail, alive)
		}
	}
}

// Pause, resume and refresh by -invoke leave a plan with no changes when the sandbox's paused
// is in ignore_changes (the documented rule); without it the plan would resume the sandbox.
func TestCLISandboxLifecycleActions_invokeLeavesNoPlanChange(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	skipBelowTerraform(t, ws, tfversion.Version1_14_0, version1_16_0)
	ctx := context.Background()
	config := func(ignore string) string {
		return cliProviderBlock + `
resource "e2b_sandbox" "dev" {
  timeout = "1h"
` + ignore + `
}

action "e2b_sandbox_pause" "night" {
  config {
    sandbox_id = e2b_sandbox.dev.id
  }
}

action "e2b_sandbox_resume" "morning" {
  config {
    sandbox_id = e2b_sandbox.dev.id
    run_for    = "1h"
  }
}

action "e2b_sandbox_refresh" "longer" {
  config {
    sandbox_id = e2b_sandbox.dev.id
    duration   = "30m"
  }
}
`
	}
	ws.Write("main.tf", config("  lifecycle {\n    ignore_changes = [paused]\n  }"))
	if r := ws.Apply(ctx); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Output())
	}
	client := testAccClient(t, emu)
	id := ws.SandboxIDsInState(ctx)[0]
	state := func() *e2b.SandboxDetail {
		d, err := client.GetSandbox(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	noChanges := func(after string) {
		t.Helper()
		r := ws.Run(ctx, "plan", "-detailed-exitcode", "-no-color", "-input=false")
		if r.Err != nil {
			t.Fatalf("plan after %s should show no changes: %v\n%s", after, r.Err, r.Output())
		}
	}
	invoke := func(a string) string {
		t.Helper()
		r := ws.Apply(ctx, "-invoke=action."+a)
		if r.Err != nil {
			t.Fatalf("-invoke %s: %v\n%s", a, r.Err, r.Output())
		}
		return r.Output()
	}

	// A shorter refresh than the sandbox has left never shortens it.
	before := state().EndAt
	invoke("e2b_sandbox_refresh.longer")
	if got := state().EndAt; got.Before(before) {
		t.Fatalf("refresh of 30m shortened a 1h sandbox: end %s, was %s", got, before)
	}
	noChanges("refresh")

	if out := invoke("e2b_sandbox_pause.night"); !strings.Contains(out, "is paused") {
		t.Fatalf("pause output:\n%s", out)
	}
	if s := state().State; s != e2b.SandboxStatePaused {
		t.Fatalf("after pause: %s", s)
	}
	noChanges("pause")

	// Without ignore_changes the plan resumes it: the rule the docs state.
	ws.Write("main.tf", config(""))
	if r := ws.Run(ctx, "plan", "-detailed-exitcode", "-no-color", "-input=false"); r.Err == nil || !strings.Contains(r.Output(), "paused") {
		t.Fatalf("without ignore_changes the plan should resume the paused sandbox: %v\n%s", r.Err, r.Output())
	}
	ws.Write("main.tf", config("  lifecycle {\n    ignore_changes = [paused]\n  }"))

	invoke("e2b_sandbox_resume.morning")
	if s := state().State; s != e2b.SandboxStateRunning {
		t.Fatalf("after resume: %s", s)
	}
	noChanges("resume")

	// Refresh extends past the configured timeout, and the plan still shows nothing.
	invoke("e2b_sandbox_refresh.longer")
	time.Sleep(10 * time.Millisecond)
	noChanges("a second refresh")
	if r := ws.Destroy(ctx); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
}
