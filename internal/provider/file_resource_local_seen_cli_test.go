package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

func localSourcesConfig(src string) string {
	return fmt.Sprintf(harness.RequiredProviders+`
resource "e2b_sandbox" "box" {
  template = "base"
}

resource "e2b_sandbox_folder" "app" {
  sandbox_id  = e2b_sandbox.box.id
  source      = "%[1]s/app"
  destination = "/home/user/app"
}

resource "e2b_sandbox_file" "conf" {
  sandbox_id = e2b_sandbox.box.id
  path       = "/home/user/conf.txt"
  source     = "%[1]s/conf.txt"
}

resource "e2b_volume" "data" {
  name = "local-sources"
}

resource "e2b_volume_file" "seed" {
  volume_id = e2b_volume.data.id
  path      = "/seed.txt"
  source    = "%[1]s/seed.txt"
}
`, src)
}

func writeSources(t *testing.T, src, v string) {
	harness.WriteTree(t, src, map[string]string{"app/a.txt": "a " + v, "app/b.txt": "b", "conf.txt": "conf " + v, "seed.txt": "seed " + v})
}

// Local sources edited between `plan -out` and `apply PLANFILE`: an update fails with the
// provider's own error naming each changed file, never "inconsistent final plan", and writes
// nothing; a create plans its hashes as known after apply, so it applies what the files hold when
// sent. Both converge: the next plan is empty.
func TestCLILocalSourcesEditedAfterPlan(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	src := t.TempDir()
	ws.Write("main.tf", localSourcesConfig(src))
	ctx := context.Background()
	run := func(args ...string) harness.Result {
		t.Helper()
		return ws.Run(ctx, append([]string{args[0], "-no-color", "-input=false"}, args[1:]...)...)
	}
	sandboxHolds := func(v string) {
		t.Helper()
		var sandboxID string
		for _, r := range ws.State(ctx) {
			if r.Type == "e2b_sandbox" {
				sandboxID, _ = r.Values["id"].(string)
			}
		}
		envd := sandboxEnvd(t, emu, sandboxID)
		for p, want := range map[string]string{"/home/user/app/a.txt": "a " + v, "/home/user/conf.txt": "conf " + v} {
			if got, err := readRemote(envd, p); err != nil || got != want {
				t.Errorf("%s holds %q (%v), want %q", p, got, err, want)
			}
		}
	}
	converged := func(when string) {
		t.Helper()
		if r := run("plan", "-detailed-exitcode"); r.Err != nil {
			t.Fatalf("%s: the next plan is not empty: %v\n%s", when, r.Err, r.Output())
		}
	}

	// A create: planned, edited, applied from the plan file.
	writeSources(t, src, "v1")
	if r := run("plan", "-out=tfplan"); r.Err != nil {
		t.Fatalf("plan: %v\n%s", r.Err, r.Output())
	}
	writeSources(t, src, "v2")
	if r := run("apply", "tfplan"); r.Err != nil {
		t.Fatalf("apply of a create edited after its plan: %v\n%s", r.Err, r.Output())
	}
	sandboxHolds("v2")
	converged("after the create")

	// An update: planned, edited again, applied from the plan file.
	writeSources(t, src, "v3")
	if r := run("plan", "-out=tfplan"); r.Err != nil {
		t.Fatalf("plan: %v\n%s", r.Err, r.Output())
	}
	writeSources(t, src, "v4")
	r := run("apply", "tfplan")
	out := r.Output()
	if r.Err == nil {
		t.Fatalf("apply of a plan whose files changed succeeded:\n%s", out)
	}
	if strings.Contains(out, "inconsistent final plan") {
		t.Errorf("the CLI's inconsistent-plan error was reached:\n%s", out)
	}
	for _, want := range []string{"app changed after this run's plan read them: a.txt (edited).", "The local file " + src + "/conf.txt changed",
		"The local file " + src + "/seed.txt changed", "Run plan again"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	sandboxHolds("v2")
	if r := run("apply", "-auto-approve"); r.Err != nil {
		t.Fatalf("apply after planning again: %v\n%s", r.Err, r.Output())
	}
	sandboxHolds("v4")
	converged("after the update")
	if r := ws.Destroy(ctx); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
}
