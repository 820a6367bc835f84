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
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	_, _, id := protoSandbox(t, srv)
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
