package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// protoProvider drives the provider's protocol server directly, the way
// Terraform 1.14 would, for RPCs OpenTofu cannot exercise (actions, list).
type protoProvider struct {
	t      *testing.T
	server tfprotov6.ProviderServer
	schema *tfprotov6.GetProviderSchemaResponse
}

// newProtoProvider configures a provider server against the emulator.
func newProtoProvider(t *testing.T, srv *emulator.Server) *protoProvider {
	t.Helper()
	return newProtoProviderAt(t, srv, srv.APIURL())
}

// newProtoProviderAt is newProtoProvider with the control plane at apiURL (a proxy to srv).
func newProtoProviderAt(t *testing.T, srv *emulator.Server, apiURL string) *protoProvider {
	t.Helper()
	ps, err := ProtocolServer(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	schema, err := ps.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	p := &protoProvider{t: t, server: ps, schema: schema}
	p.noErrors("GetProviderSchema", schema.Diagnostics)
	cfg := p.dynamicValue(schema.Provider.ValueType(), map[string]tftypes.Value{
		"api_key":        tftypes.NewValue(tftypes.String, srv.APIKey()),
		"api_url":        tftypes.NewValue(tftypes.String, apiURL),
		"sandbox_url":    tftypes.NewValue(tftypes.String, srv.SandboxURL()),
		"retry_wait_min": tftypes.NewValue(tftypes.String, "10ms"),
		"retry_wait_max": tftypes.NewValue(tftypes.String, "200ms"),
	})
	resp, err := ps.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: cfg, TerraformVersion: "1.14.0"})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("ConfigureProvider", resp.Diagnostics)
	return p
}

// dynamicValue builds an object of typ from vals; missing attributes are null.
func (p *protoProvider) dynamicValue(typ tftypes.Type, vals map[string]tftypes.Value) *tfprotov6.DynamicValue {
	p.t.Helper()
	obj, ok := typ.(tftypes.Object)
	if !ok {
		p.t.Fatalf("schema type is %T, want an object", typ)
	}
	all := map[string]tftypes.Value{}
	for name, at := range obj.AttributeTypes {
		all[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range vals {
		if _, ok := all[name]; !ok {
			p.t.Fatalf("no attribute %q in schema", name)
		}
		all[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(obj, tftypes.NewValue(obj, all))
	if err != nil {
		p.t.Fatal(err)
	}
	return &dv
}

// attributes decodes a dynamic value of the object type typ into its attributes: the inverse of
// dynamicValue.
func (p *protoProvider) attributes(dv *tfprotov6.DynamicValue, typ tftypes.Type) map[string]tftypes.Value {
	p.t.Helper()
	v, err := dv.Unmarshal(typ)
	if err != nil {
		p.t.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	if err := v.As(&attrs); err != nil {
		p.t.Fatal(err)
	}
	return attrs
}

func (p *protoProvider) noErrors(what string, diags []*tfprotov6.Diagnostic) {
	p.t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			p.t.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
		}
	}
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// execConfig is the e2b_exec configuration for a sandbox and command.
func (p *protoProvider) execConfig(vals map[string]tftypes.Value) *tfprotov6.DynamicValue {
	return p.dynamicValue(p.schema.ActionSchemas["e2b_exec"].Schema.ValueType(), vals)
}

// invoke runs the e2b_exec action; onProgress may be nil.
func (p *protoProvider) invoke(ctx context.Context, cfg *tfprotov6.DynamicValue, onProgress func(string)) (progress []string, diags []*tfprotov6.Diagnostic) {
	p.t.Helper()
	return p.invokeType(ctx, "e2b_exec", cfg, onProgress)
}

// invokeType runs the action of type typ and collects its progress messages and the
// diagnostics of its completed event; onProgress may be nil.
func (p *protoProvider) invokeType(ctx context.Context, typ string, cfg *tfprotov6.DynamicValue, onProgress func(string)) (progress []string, diags []*tfprotov6.Diagnostic) {
	p.t.Helper()
	as, ok := p.server.(tfprotov6.ActionServer)
	if !ok {
		p.t.Fatal("provider server does not serve actions")
	}
	stream, err := as.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{ActionType: typ, Config: cfg})
	if err != nil {
		p.t.Fatal(err)
	}
	completed := false
	for ev := range stream.Events {
		switch e := ev.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			progress = append(progress, e.Message)
			if onProgress != nil {
				onProgress(e.Message)
			}
		case tfprotov6.CompletedInvokeActionEventType:
			diags = e.Diagnostics
			completed = true
		}
	}
	if !completed {
		p.t.Fatal("the action stream ended without a completed event")
	}
	return progress, diags
}

func errorDiag(diags []*tfprotov6.Diagnostic) *tfprotov6.Diagnostic {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return d
		}
	}
	return nil
}

// protoSandbox creates a sandbox through the client and returns its envd.
func protoSandbox(t *testing.T, srv *emulator.Server) (*e2b.Client, *e2b.Envd, string) {
	t.Helper()
	client := testAccClient(t, srv)
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		t.Fatalf("create sandbox: %v", err)
	}
	envd, err := client.SandboxEnvd(context.Background(), sb.SandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	return client, envd, sb.SandboxID
}

// newProtoSandbox starts an emulator, a protocol provider against it and a sandbox in it: the
// opening of every protocol test that acts on one sandbox.
func newProtoSandbox(t *testing.T) (*protoProvider, *e2b.Client, *e2b.Envd, string) {
	t.Helper()
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	client, envd, id := protoSandbox(t, srv)
	return p, client, envd, id
}

// waitNoProcess polls until no process in the sandbox runs a command containing marker.
func waitNoProcess(t *testing.T, envd *e2b.Envd, marker string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		procs, err := envd.ListProcesses(context.Background())
		if err != nil {
			t.Fatalf("list processes: %v", err)
		}
		running := false
		for _, p := range procs {
			running = running || strings.Contains(strings.Join(p.Config.Args, " "), marker)
		}
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a process running %q is still alive: %+v", marker, procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestExecActionProtocolSuccess(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	cfg := p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str(`printf 'one\ntwo\n'; echo "warn $GREETING" >&2; cat`),
		"env":        tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"GREETING": str("hi")}),
		"stdin":      str("from stdin\n"),
	})
	as := p.server.(tfprotov6.ActionServer)
	plan, err := as.PlanAction(context.Background(), &tfprotov6.PlanActionRequest{ActionType: "e2b_exec", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("PlanAction", plan.Diagnostics)

	progress, diags := p.invoke(context.Background(), cfg, nil)
	p.noErrors("InvokeAction", diags)
	all := strings.Join(progress, "\n")
	for _, want := range []string{"stdout: one\nstdout: two", "stderr: warn hi", "stdout: from stdin", "exit code 0"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
}

func TestExecActionProtocolNonZeroExit(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	_, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str("echo 'compiling'; echo 'error: missing semicolon' >&2; exit 7"),
	}), nil)
	d := errorDiag(diags)
	if d == nil {
		t.Fatal("want an error diagnostic for exit code 7")
	}
	if !strings.Contains(d.Summary, "exit code 7") || !strings.Contains(d.Detail, "error: missing semicolon") {
		t.Fatalf("diagnostic %q / %q should carry the exit code and stderr", d.Summary, d.Detail)
	}
}

func TestExecActionProtocolTimeoutKills(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	_, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str("sleep 777"),
		"timeout":    str("1s"),
	}), nil)
	d := errorDiag(diags)
	if d == nil || !strings.Contains(d.Summary, "timed out") || !strings.Contains(d.Detail, "killed") {
		t.Fatalf("want a timed out diagnostic, got %+v", d)
	}
	waitNoProcess(t, envd, "sleep 777")
}

func TestExecActionProtocolCancelKills(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, diags := p.invoke(ctx, p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str("echo started; sleep 888"),
	}), func(msg string) {
		if strings.Contains(msg, "started") {
			cancel()
		}
	})
	d := errorDiag(diags)
	if d == nil || !strings.Contains(d.Summary, "cancelled") {
		t.Fatalf("want a cancelled diagnostic, got %+v", d)
	}
	waitNoProcess(t, envd, "sleep 888")
}

func TestExecActionProtocolLargeOutput(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	const lines = 200000
	progress, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str("seq 1 200000; seq 1 1000 >&2"),
	}), nil)
	p.noErrors("InvokeAction", diags)
	seen := 0
	for _, m := range progress {
		seen += strings.Count(m, "stdout: ")
	}
	if seen != lines {
		t.Fatalf("progress carried %d stdout lines, want %d", seen, lines)
	}
	if len(progress) > lines/100 {
		t.Fatalf("%d progress messages for %d lines: output is not batched", len(progress), lines)
	}
	if last := progress[len(progress)-1]; !strings.Contains(last, "201000 lines") {
		t.Fatalf("last message %q should count all lines", last)
	}
	t.Logf("%d lines in %d progress messages", lines, len(progress))
}

func TestExecActionProtocolSandboxGone(t *testing.T) {
	p, client, _, id := newProtoSandbox(t)
	if err := client.KillSandbox(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	_, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str("true"),
	}), nil)
	d := errorDiag(diags)
	if d == nil || !strings.Contains(d.Detail, "does not exist") {
		t.Fatalf("want a sandbox does not exist diagnostic, got %+v", d)
	}
}

func TestExecActionProtocolValidation(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	as := p.server.(tfprotov6.ActionServer)
	cases := []struct {
		name, command, timeout, want, detail string
	}{
		{"empty command", "   ", "", "Invalid Attribute Value Match", "command must contain a shell command"},
		{"not a duration", "true", "ten minutes", "Invalid duration", `Attribute timeout must be a Go duration such as "90s"`},
		{"too long", "true", "48h", "Duration out of range", "timeout must be a duration from 1s to 24h"},
	}
	for _, c := range cases {
		vals := map[string]tftypes.Value{"sandbox_id": str("isandbox"), "command": str(c.command)}
		if c.timeout != "" {
			vals["timeout"] = str(c.timeout)
		}
		resp, err := as.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: "e2b_exec", Config: p.execConfig(vals)})
		if err != nil {
			t.Fatal(err)
		}
		d := errorDiag(resp.Diagnostics)
		if d == nil || d.Summary != c.want || !strings.Contains(d.Detail, c.detail) {
			t.Errorf("%s: got %+v, want %q saying %q", c.name, d, c.want, c.detail)
		}
	}
}

func TestCountLines(t *testing.T) {
	for n, want := range map[int]string{0: "0 lines", 1: "1 line", 2: "2 lines"} {
		if got := countLines(n); got != want {
			t.Errorf("countLines(%d) = %q, want %q", n, got, want)
		}
	}
}

// Output that tries to drive the operator's terminal (clear the screen, set the title, write
// the clipboard, overwrite a line with a fake "Apply complete!", reverse text) reaches the
// streamed lines and the error's output tail escaped: no ESC, BEL, C1 or bidi character.
func TestExecActionProtocolEscapesTerminalControls(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	hostile := `printf '\033[2J\033]0;pwned\007\033]52;c;ZXZpbA==\007\rApply complete!\302\233\342\200\256x\n'`
	progress, diags := p.invoke(context.Background(), p.execConfig(map[string]tftypes.Value{
		"sandbox_id": str(id),
		"command":    str(hostile + "; " + hostile + " >&2; exit 3"),
	}), nil)
	d := errorDiag(diags)
	if d == nil {
		t.Fatal("want an error diagnostic for exit code 3")
	}
	for what, text := range map[string]string{"progress": strings.Join(progress, "\n"), "error": d.Summary + d.Detail} {
		if strings.ContainsAny(text, "\x1b\x07\r\u009b\u202e") {
			t.Errorf("%s carries terminal controls: %q", what, text)
		}
		if !strings.Contains(text, `\x1b]0;pwned\x07`) || !strings.Contains(text, `\rApply complete!\u009b\u202ex`) {
			t.Errorf("%s does not show the controls escaped: %q", what, text)
		}
	}
}
