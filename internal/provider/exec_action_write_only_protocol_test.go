package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// e2b_exec runs in the sandbox named by the write-only sandbox_id_wo, which is how an ephemeral
// sandbox's ID reaches an action.
func TestExecActionProtocolWriteOnlySandboxID(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	progress, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id_wo": str(id),
		"command":       str("echo from-write-only"),
	}), nil)
	p.noErrors("InvokeAction", diags)
	if all := strings.Join(progress, "\n"); !strings.Contains(all, "stdout: from-write-only") {
		t.Fatalf("progress lacks the command's output:\n%s", all)
	}
}

// Exactly one of sandbox_id and sandbox_id_wo: checked when the configuration is validated.
func TestExecSandboxIDExactlyOne(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	as := p.server.(tfprotov6.ActionServer)
	cmdType := p.schema.ResourceSchemas["e2b_sandbox_command"].ValueType()
	for name, vals := range map[string]map[string]tftypes.Value{
		"both":    {"sandbox_id": str("ia"), "sandbox_id_wo": str("ib"), "command": str("true")},
		"neither": {"command": str("true")},
	} {
		act, err := as.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: "e2b_exec", Config: p.execConfig(vals)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: "e2b_sandbox_command", Config: p.dynamicValue(cmdType, vals)})
		if err != nil {
			t.Fatal(err)
		}
		for what, diags := range map[string][]*tfprotov6.Diagnostic{"e2b_exec": act.Diagnostics, "e2b_sandbox_command": res.Diagnostics} {
			if d := errorDiag(diags); d == nil || !strings.Contains(d.Detail, "sandbox_id_wo") {
				t.Errorf("%s, %s: want an error naming sandbox_id_wo, got %+v", name, what, d)
			}
		}
	}
}

// Terraform validates an action's configuration before it plans it. The write-only attributes
// pass, known or not yet known (terraform validate sends an unopened ephemeral sandbox's ID as
// unknown); terraform-plugin-framework v1.19.0 refused both ("WriteOnly Attribute Not Allowed")
// until ProtocolServer let them through. A real error still reaches the user.
func TestExecActionValidateWriteOnly(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	as := p.server.(tfprotov6.ActionServer)
	envType := tftypes.Map{ElementType: tftypes.String}
	validate := func(vals map[string]tftypes.Value) []*tfprotov6.Diagnostic {
		t.Helper()
		resp, err := as.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: "e2b_exec", Config: p.execConfig(vals)})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Diagnostics
	}
	for name, vals := range map[string]map[string]tftypes.Value{
		"known": {
			"sandbox_id_wo": str("i1a2b3c4"), "command": str("true"), "stdin": str("input"),
			"env": tftypes.NewValue(envType, map[string]tftypes.Value{"TOKEN": str("secret")}),
		},
		"unknown": {
			"sandbox_id_wo": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "command": str("true"),
			"stdin": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"env":   tftypes.NewValue(envType, map[string]tftypes.Value{"TOKEN": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
		},
	} {
		for _, d := range validate(vals) {
			t.Errorf("%s: %s: %s", name, d.Summary, d.Detail)
		}
	}
	d := errorDiag(validate(map[string]tftypes.Value{
		"sandbox_id": str("i1a2b3c4"), "command": str("true"),
		"env": tftypes.NewValue(envType, map[string]tftypes.Value{"1BAD": str("x")}),
	}))
	if d == nil || !strings.Contains(d.Detail, "environment variable name") {
		t.Errorf("an invalid env name: want its error, got %+v", d)
	}
}

// Run from its plan (terraform apply -invoke), an action gets its configuration without the
// ephemeral values: a sandbox ID or an env variable that arrives empty is an error saying why.
func TestExecActionDroppedEphemeralValues(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	ctx := context.Background()
	_, diags := p.invoke(ctx, p.execConfig(map[string]tftypes.Value{"command": str("true")}), nil)
	if d := errorDiag(diags); d == nil || d.Summary != "No sandbox ID reached the action" || !strings.Contains(d.Detail, "terraform apply -invoke") {
		t.Errorf("no sandbox ID: want an error explaining -invoke, got %+v", d)
	}
	env := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
		"STAGE": str("ci"), "TOKEN": tftypes.NewValue(tftypes.String, nil)})
	progress, diags := p.invoke(ctx, p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id), "command": str("echo ran"), "env": env}), nil)
	if d := errorDiag(diags); d == nil || !strings.Contains(d.Detail, `env["TOKEN"] has no value`) {
		t.Errorf("env without a value: want an error naming it, got %+v", d)
	}
	if len(progress) != 0 {
		t.Errorf("the command ran anyway: %q", progress)
	}
}
