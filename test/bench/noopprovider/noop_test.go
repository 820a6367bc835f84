package main

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

const noopConfig = `terraform {
  required_providers {
    e2b = { source = "e2b-terraform/e2b" }
  }
}

resource "e2b_sandbox" "s" {
  count = 3
}

resource "e2b_sandbox_file" "f" {
  count      = 3
  sandbox_id = e2b_sandbox.s[count.index].id
  path       = "/home/user/f${count.index}.txt"
  content    = "hello ${count.index}\n"
}

resource "e2b_sandbox_command" "c" {
  count      = 3
  sandbox_id = e2b_sandbox.s[count.index].id
  command    = "cat /home/user/f${count.index}.txt"
  triggers   = { f = e2b_sandbox_file.f[count.index].sha256 }
}
`

// TestNoopProviderUnderCLI drives apply, a second plan and destroy through
// the real CLI, which checks every plan and apply result against the schema.
func TestNoopProviderUnderCLI(t *testing.T) {
	ws := harness.NewWorkspaceWith(t, nil, harness.BuildProvider(t, "./test/bench/noopprovider"))
	ws.Write("main.tf", noopConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(args ...string) (string, int) {
		r := ws.Run(ctx, args...)
		var exit *exec.ExitError
		switch {
		case r.Err == nil:
			return r.Output(), 0
		case errors.As(r.Err, &exit):
			return r.Output(), exit.ExitCode()
		default:
			t.Fatalf("%v: %v", args, r.Err)
			return "", -1
		}
	}

	if out, code := run("apply", "-auto-approve", "-no-color", "-input=false"); code != 0 {
		t.Fatalf("apply exited %d:\n%s", code, out)
	} else if !strings.Contains(out, "9 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply did not create 9 resources:\n%s", out)
	}
	if out, code := run("plan", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
		t.Fatalf("second plan exited %d (want 0, no changes):\n%s", code, out)
	}
	if out, code := run("destroy", "-auto-approve", "-no-color", "-input=false"); code != 0 {
		t.Fatalf("destroy exited %d:\n%s", code, out)
	} else if !strings.Contains(out, "9 destroyed") {
		t.Fatalf("destroy did not remove 9 resources:\n%s", out)
	}
}

// TestPlanApplyCreate checks the create path without a CLI: computed values
// are unknown in the plan, known after apply, and the identity follows state.
func TestPlanApplyCreate(t *testing.T) {
	ctx := context.Background()
	s, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	sch, diags := s.resourceSchema(ctx, "e2b_sandbox_file")
	if diags != nil {
		t.Fatal(diags[0].Summary, diags[0].Detail)
	}
	typ := sch.ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	vals["sandbox_id"] = tftypes.NewValue(tftypes.String, "sbx-1")
	vals["path"] = tftypes.NewValue(tftypes.String, "~/a.txt")
	vals["content"] = tftypes.NewValue(tftypes.String, "hi")
	config := dynamic(t, typ, tftypes.NewValue(typ, vals))

	plan, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "e2b_sandbox_file",
		PriorState:       dynamic(t, typ, tftypes.NewValue(typ, nil)),
		ProposedNewState: config,
		Config:           config,
	})
	if err != nil || plan.Diagnostics != nil {
		t.Fatalf("plan: %v %v", err, plan.Diagnostics)
	}
	planned := attrs(t, typ, plan.PlannedState)
	if planned["sha256"].IsKnown() || planned["id"].IsKnown() {
		t.Errorf("computed attributes planned known: %v", planned)
	}
	if !planned["content"].Equal(vals["content"]) {
		t.Errorf("content planned as %v", planned["content"])
	}

	applied, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName:     "e2b_sandbox_file",
		PlannedState: plan.PlannedState,
		Config:       config,
	})
	if err != nil || applied.Diagnostics != nil {
		t.Fatalf("apply: %v %v", err, applied.Diagnostics)
	}
	state := attrs(t, typ, applied.NewState)
	if !state.known() {
		t.Errorf("unknown values left after apply: %v", state)
	}
	if applied.NewIdentity == nil {
		t.Fatal("no identity")
	}
	idType := s.identities["e2b_sandbox_file"].ValueType()
	id := attrs(t, idType, applied.NewIdentity.IdentityData)
	if !id["sandbox_id"].Equal(vals["sandbox_id"]) || !id["path"].Equal(state["absolute_path"]) {
		t.Errorf("identity %v does not follow state %v", id, state)
	}
}

type values map[string]tftypes.Value

func (v values) known() bool {
	for _, x := range v {
		if !x.IsFullyKnown() {
			return false
		}
	}
	return true
}

func dynamic(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func attrs(t *testing.T, typ tftypes.Type, dv *tfprotov6.DynamicValue) values {
	t.Helper()
	v, err := dv.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		t.Fatal(err)
	}
	return m
}
