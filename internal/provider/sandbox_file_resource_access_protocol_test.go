package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// createFileProto writes a file through ApplyResourceChange and returns its state and private
// state, as the CLI would keep them.
func createFileProto(t *testing.T, p *protoProvider, sandboxID, path, content string) (*tfprotov6.DynamicValue, []byte) {
	t.Helper()
	typ := p.schema.ResourceSchemas["e2b_sandbox_file"].ValueType()
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	planned := p.dynamicValue(typ, map[string]tftypes.Value{
		"sandbox_id": str(sandboxID), "path": str(path), "content": str(content),
		"sha256": str(sha256Hex(content)), "size": tftypes.NewValue(tftypes.Number, len(content)),
		"id": unknown, "absolute_path": unknown,
	})
	config := p.dynamicValue(typ, map[string]tftypes.Value{
		"sandbox_id": str(sandboxID), "path": str(path), "content": str(content),
	})
	prior, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox_file", PriorState: &prior, PlannedState: planned, Config: config,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("ApplyResourceChange (create)", resp.Diagnostics)
	return resp.NewState, resp.Private
}

// deleteFileProto deletes through ApplyResourceChange, handing over the private state as the
// CLI does from plan to apply.
func deleteFileProto(t *testing.T, p *protoProvider, state *tfprotov6.DynamicValue, private []byte) []*tfprotov6.Diagnostic {
	t.Helper()
	typ := p.schema.ResourceSchemas["e2b_sandbox_file"].ValueType()
	null, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox_file", PriorState: state, PlannedState: &null, Config: &null, PlannedPrivate: private,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// A write leaves the sandbox's envd access sealed in private state, never readable: a destroy
// in a fresh provider process removes the file with one request and reads no sandbox.
func TestSandboxFileDelete_sealedAccessNeedsNoLookup(t *testing.T) {
	srv := newTestEmulator(t)
	sb, envd := secureSandbox(t, srv)
	id := sb.SandboxID
	state, private := createFileProto(t, newProtoProvider(t, srv), id, "sealed.txt", "sealed\n")
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(private, &keys); err != nil || len(keys[sealedAccessKey]) == 0 {
		t.Fatalf("private state %s has no %s", private, sealedAccessKey)
	}
	if sb.EnvdAccessToken == "" || strings.Contains(string(private), sb.EnvdAccessToken) {
		t.Fatalf("private state holds the envd access token readable: %s", private)
	}

	srv.ResetCounters()
	for _, d := range deleteFileProto(t, newProtoProvider(t, srv), state, private) {
		t.Errorf("delete: %v %s: %s", d.Severity, d.Summary, d.Detail)
	}
	if got := srv.Counters().Requests; len(got) != 1 || got["envd /process.Process/Start"] != 1 {
		t.Errorf("delete sent %v, want only the rm started in the sandbox", got)
	}
	if _, err := readRemote(envd, "/home/user/sealed.txt"); err == nil {
		t.Error("the file is still there")
	}
}

// A sealed access to a sandbox paused since is not used to wake it: the delete asks the control
// plane, leaves the file and says so.
func TestSandboxFileDelete_sealedAccessToPausedSandbox(t *testing.T) {
	srv := newTestEmulator(t)
	client, _, id := protoSandbox(t, srv)
	state, private := createFileProto(t, newProtoProvider(t, srv), id, "kept.txt", "kept\n")
	if err := client.PauseSandbox(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounters()
	diags := deleteFileProto(t, newProtoProvider(t, srv), state, private)
	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityWarning || diags[0].Summary != "File left in paused sandbox" {
		t.Fatalf("want the paused-sandbox warning, got %+v", diags)
	}
	if got := srv.Counters().Requests["GET /sandboxes/{id}"]; got != 1 {
		t.Errorf("the control plane was read %d times, want once", got)
	}
	resumed, _, err := client.ConnectSandbox(context.Background(), id, 60)
	if err != nil {
		t.Fatal(err)
	}
	envd, err := client.SandboxEnvd(context.Background(), resumed.SandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readRemote(envd, "/home/user/kept.txt"); err != nil || got != "kept\n" {
		t.Fatalf("the file in the paused sandbox: %q, %v", got, err)
	}
}

// A refresh that finds the sandbox paused drops the sealed access, so that the delete that
// follows asks the control plane instead of reaching for the sandbox.
func TestSandboxFileRead_pausedDropsSealedAccess(t *testing.T) {
	srv := newTestEmulator(t)
	client, _, id := protoSandbox(t, srv)
	p := newProtoProvider(t, srv)
	state, private := createFileProto(t, p, id, "kept.txt", "kept\n")
	if err := client.PauseSandbox(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	resp, err := newProtoProvider(t, srv).server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: "e2b_sandbox_file", CurrentState: state, Private: private,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("ReadResource", resp.Diagnostics)
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(resp.Private, &keys); err != nil {
		t.Fatalf("private state %s: %v", resp.Private, err)
	}
	if _, ok := keys[sealedAccessKey]; ok {
		t.Errorf("the refresh of a paused sandbox kept the sealed access: %s", resp.Private)
	}
	if _, ok := keys[remoteFileKey]; !ok {
		t.Errorf("the refresh of a paused sandbox lost what it knew of the file: %s", resp.Private)
	}
}

// secureSandbox creates a secure sandbox (its envd takes only its access token) and returns it
// and its envd.
func secureSandbox(t *testing.T, srv *emulator.Server) (*e2b.Sandbox, *e2b.Envd) {
	t.Helper()
	client := testAccClient(t, srv)
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600, Secure: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	envd, err := client.SandboxEnvd(context.Background(), sb.SandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	return sb, envd
}
