package provider

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// Ctrl-C while a new template builds, through the CLI a user runs: the
// template is in state with its build "building", not tainted, so the next
// plan carries the build on in place; once E2B finished it, the plan is
// empty. Before, the create was an error, Terraform tainted the template, and
// the next apply deleted it with its finished build and built it again.
func TestCLITemplate_interruptedCreateIsNotReplaced(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	gate := newBuildGate(t)
	ws.Write("main.tf", harness.RequiredProviders+`
resource "e2b_template" "app" {
  name          = "cli-interrupted"
  from_template = "base"
  steps         = [{ run = { command = "`+gate.step("echo released")+`" } }]
}
`)
	ctx := context.Background()
	client := testAccClient(t, emu)
	cmd, out := ws.Start(ctx, "apply", "-auto-approve", "-no-color", "-input=false")
	var tpl *e2b.TemplateWithBuilds
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, err := client.GetTemplate(ctx, "cli-interrupted")
		if err == nil && len(got.Builds) == 1 && got.Builds[0].Status == e2b.BuildStatusBuilding {
			tpl = got
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the build never started: %v\n%s", err, out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := waitCLI(cmd, 60*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "Template build not finished") || !strings.Contains(out.String(), "interrupted") {
		t.Fatalf("the interrupted apply should warn that the build goes on and what comes next:\n%s", out.String())
	}
	found := false
	for _, r := range ws.State(ctx) {
		if r.Address == "e2b_template.app" {
			found = r.Values["template_id"] == tpl.TemplateID && r.Values["build_status"] == e2b.BuildStatusBuilding
		}
	}
	if !found {
		t.Fatalf("state lacks template %s with its build building:\n%s", tpl.TemplateID, ws.Run(ctx, "show", "-no-color").Output())
	}

	plan := ws.Run(ctx, "plan", "-no-color", "-input=false")
	if plan.Err != nil || !strings.Contains(plan.Stdout, "will be updated in-place") || strings.Contains(plan.Stdout, "replace") {
		t.Fatalf("after the interrupt the plan must carry the build on in place, never replace the template: %v\n%s", plan.Err, plan.Output())
	}
	gate.open()
	if err := waitBuildID(t, emu, tpl.TemplateID, tpl.Builds[0].BuildID, e2b.BuildStatusReady); err != nil {
		t.Fatal(err)
	}
	plan = ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode")
	if plan.Err != nil || !strings.Contains(plan.Stdout, "No changes") {
		t.Fatalf("once E2B finished the build the plan must be empty: %v\n%s", plan.Err, plan.Output())
	}
	after, err := client.GetTemplate(ctx, tpl.TemplateID)
	if err != nil || len(after.Builds) != 1 {
		t.Fatalf("template %s after the interrupt: %+v, %v; want it kept with its one build", tpl.TemplateID, after, err)
	}
	if r := ws.Destroy(ctx); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
	if _, err := client.GetTemplate(ctx, tpl.TemplateID); !e2b.IsNotFound(err) {
		t.Fatalf("template %s after destroy: %v", tpl.TemplateID, err)
	}
}
