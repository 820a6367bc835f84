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

// openEphemeral opens an ephemeral resource through the protocol and returns its result.
func (p *protoProvider) openEphemeral(typeName string, vals map[string]tftypes.Value) (*tfprotov6.OpenEphemeralResourceResponse, map[string]tftypes.Value) {
	p.t.Helper()
	typ := p.schema.EphemeralResourceSchemas[typeName].ValueType()
	resp, err := p.server.OpenEphemeralResource(context.Background(), &tfprotov6.OpenEphemeralResourceRequest{
		TypeName: typeName, Config: p.dynamicValue(typ, vals)})
	if err != nil {
		p.t.Fatal(err)
	}
	if resp.Result == nil {
		return resp, nil
	}
	return resp, p.attributes(resp.Result, typ)
}

func (p *protoProvider) validateEphemeral(typeName string, vals map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	p.t.Helper()
	resp, err := p.server.ValidateEphemeralResourceConfig(context.Background(), &tfprotov6.ValidateEphemeralResourceConfigRequest{
		TypeName: typeName, Config: p.dynamicValue(p.schema.EphemeralResourceSchemas[typeName].ValueType(), vals)})
	if err != nil {
		p.t.Fatal(err)
	}
	return resp.Diagnostics
}

func stringOf(t *testing.T, v tftypes.Value) string {
	t.Helper()
	var s string
	if v.IsNull() {
		return ""
	}
	if err := v.As(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Open creates a labelled sandbox with the configured options and returns how to reach it; Renew
// moves its end; Close kills it, and a second Close finds nothing to do.
func TestEphemeralSandboxProtocolLifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	client := testAccClient(t, srv)
	ports := tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 3000)})
	resp, out := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{
		"timeout":  str("20s"),
		"ports":    ports,
		"metadata": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"purpose": str("ci")}),
		"env_vars": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"STAGE": str("smoke")}),
	})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	id := stringOf(t, out["id"])
	d, err := client.GetSandbox(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Metadata[ephemeralSandboxLabel] != "true" || d.Metadata["purpose"] != "ci" {
		t.Errorf("metadata %v lacks the ephemeral label or the configured purpose", d.Metadata)
	}
	if got := stringOf(t, out["envd_access_token"]); got == "" || got != d.EnvdAccessToken {
		t.Errorf("envd_access_token %q, want the sandbox's %q", got, d.EnvdAccessToken)
	}
	if got := stringOf(t, out["envd_url"]); got != srv.SandboxURL() {
		t.Errorf("envd_url %q, want the sandbox URL %q", got, srv.SandboxURL())
	}
	var hosts map[string]tftypes.Value
	if err := out["hosts"].As(&hosts); err != nil {
		t.Fatal(err)
	}
	if got := stringOf(t, hosts["3000"]); got != "3000-"+id+".e2b.app" {
		t.Errorf("hosts[3000] = %q", got)
	}
	for name, want := range map[string]string{"template": "base", "timeout": "20s"} {
		if got := stringOf(t, out[name]); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if left := time.Until(resp.RenewAt); left < 5*time.Second || left > 15*time.Second {
		t.Errorf("RenewAt is %s away, want half of the 20 s timeout", left)
	}

	// The env vars reached the sandbox.
	res, err := mustEnvd(t, client, id).Exec(context.Background(), e2b.ExecRequest{Command: "printf %s \"$STAGE\"", Timeout: time.Minute})
	if err != nil || res.Stdout != "smoke" {
		t.Fatalf("STAGE in the sandbox: %q, %v", res.Stdout, err)
	}

	before := d.EndAt
	time.Sleep(1100 * time.Millisecond)
	renew, err := p.server.RenewEphemeralResource(context.Background(), &tfprotov6.RenewEphemeralResourceRequest{
		TypeName: "e2b_sandbox", Private: resp.Private})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("RenewEphemeralResource", renew.Diagnostics)
	if d, err = client.GetSandbox(context.Background(), id); err != nil || !d.EndAt.After(before) {
		t.Fatalf("renew did not move the end (%v -> %v): %v", before, d.EndAt, err)
	}
	if renew.RenewAt.IsZero() {
		t.Error("renew must ask to be called again")
	}

	for range 2 { // The second close finds the sandbox gone, which is fine.
		closed, err := p.server.CloseEphemeralResource(context.Background(), &tfprotov6.CloseEphemeralResourceRequest{
			TypeName: "e2b_sandbox", Private: renew.Private})
		if err != nil {
			t.Fatal(err)
		}
		if len(closed.Diagnostics) > 0 {
			t.Fatalf("close: %+v", closed.Diagnostics[0])
		}
		if _, err := client.GetSandbox(context.Background(), id); !e2b.IsNotFound(err) {
			t.Fatalf("after close the sandbox should be gone, got %v", err)
		}
	}
}

func mustEnvd(t *testing.T, client *e2b.Client, id string) *e2b.Envd {
	t.Helper()
	envd, err := client.SandboxEnvd(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	return envd
}

// Without renewals the sandbox ends at its timeout: renewal is what keeps it alive.
func TestEphemeralSandboxProtocolEndsAtTimeoutWithoutRenewal(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	resp, out := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{"timeout": str("1s")})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	id := stringOf(t, out["id"])
	time.Sleep(2 * time.Second)
	if _, err := testAccClient(t, srv).GetSandbox(context.Background(), id); !e2b.IsNotFound(err) {
		t.Fatalf("sandbox %s should have ended at its 1 s timeout: %v", id, err)
	}
	renew, err := p.server.RenewEphemeralResource(context.Background(), &tfprotov6.RenewEphemeralResourceRequest{
		TypeName: "e2b_sandbox", Private: resp.Private})
	if err != nil {
		t.Fatal(err)
	}
	if d := errorDiag(renew.Diagnostics); d == nil || !strings.Contains(d.Summary, "ended before the run did") {
		t.Fatalf("renewing a sandbox that ended should say so, got %+v", renew.Diagnostics)
	}
}

// A close that cannot reach E2B warns (the sandbox ends at its timeout) instead of failing the run.
func TestEphemeralSandboxProtocolCloseUnreachable(t *testing.T) {
	srv, err := emulator.Start(withTestSandboxRoutes(t, emulator.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	p := newProtoProvider(t, srv)
	resp, _ := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	_ = srv.Close()
	closed, err := p.server.CloseEphemeralResource(context.Background(), &tfprotov6.CloseEphemeralResourceRequest{
		TypeName: "e2b_sandbox", Private: resp.Private})
	if err != nil {
		t.Fatal(err)
	}
	if len(closed.Diagnostics) != 1 || closed.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityWarning ||
		!strings.Contains(closed.Diagnostics[0].Detail, ephemeralSandboxLabel) {
		t.Fatalf("want one warning naming the leftover label, got %+v", closed.Diagnostics)
	}
}

// Bad ephemeral configurations fail validation, before any sandbox is made.
// networkType is the type of the ephemeral e2b_sandbox's network attribute.
func networkType(p *protoProvider) tftypes.Object {
	return p.schema.EphemeralResourceSchemas["e2b_sandbox"].ValueType().(tftypes.Object).AttributeTypes["network"].(tftypes.Object)
}

func TestEphemeralProtocolValidation(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	cases := []struct {
		typeName, name string
		vals           map[string]tftypes.Value
		want           string
	}{
		{"e2b_sandbox", "timeout not whole seconds", map[string]tftypes.Value{"timeout": str("1500ms")}, "Duration out of range"},
		{"e2b_sandbox", "timeout too long", map[string]tftypes.Value{"timeout": str("25h")}, "Duration out of range"},
		{"e2b_sandbox", "timeout no unit", map[string]tftypes.Value{"timeout": str("300")}, "Invalid duration"},
		{"e2b_sandbox", "mount path not clean", map[string]tftypes.Value{"volume_mounts": tftypes.NewValue(
			tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"v": str("/mnt/data/")})}, "Invalid volume_mounts"},
		{"e2b_sandbox", "private traffic, not secure", map[string]tftypes.Value{
			"secure": tftypes.NewValue(tftypes.Bool, false),
			"network": tftypes.NewValue(p.schema.EphemeralResourceSchemas["e2b_sandbox"].ValueType().(tftypes.Object).AttributeTypes["network"],
				map[string]tftypes.Value{
					"allow_out":            tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, nil),
					"deny_out":             tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, nil),
					"allow_public_traffic": tftypes.NewValue(tftypes.Bool, false),
					"mask_request_host":    tftypes.NewValue(tftypes.String, nil),
					"rules":                tftypes.NewValue(networkType(p).AttributeTypes["rules"], nil),
					"egress_proxy":         tftypes.NewValue(networkType(p).AttributeTypes["egress_proxy"], nil),
					"https_ports":          tftypes.NewValue(tftypes.Set{ElementType: tftypes.Number}, nil),
				}),
		}, "allow_public_traffic = false needs secure = true"},
		{"e2b_sandbox", "port out of range", map[string]tftypes.Value{
			"ports": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 70000)}),
		}, "Invalid Attribute Value"},
		{"e2b_sandbox_access", "resume without timeout", map[string]tftypes.Value{
			"sandbox_id": str("isandbox"), "resume": tftypes.NewValue(tftypes.Bool, true)}, "resume = true needs a timeout"},
		{"e2b_sandbox_access", "bad sandbox ID", map[string]tftypes.Value{"sandbox_id": str("not/an/id")}, "Invalid Attribute Value Match"},
	}
	for _, c := range cases {
		d := errorDiag(p.validateEphemeral(c.typeName, c.vals))
		if d == nil || !strings.Contains(d.Summary, c.want) {
			t.Errorf("%s: got %+v, want %q", c.name, d, c.want)
		}
	}
	if n := srv.Counters().SandboxesCreated; n != 0 {
		t.Errorf("validation created %d sandboxes", n)
	}
}

// e2b_sandbox_access refuses a paused sandbox unless told to resume it, and a missing one.
func TestSandboxAccessProtocolPausedAndMissing(t *testing.T) {
	p, client, _, id := newProtoSandbox(t)
	if err := client.PauseSandbox(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	resp, _ := p.openEphemeral("e2b_sandbox_access", map[string]tftypes.Value{"sandbox_id": str(id)})
	if d := errorDiag(resp.Diagnostics); d == nil || d.Summary != "Sandbox is paused" {
		t.Fatalf("want a paused-sandbox error, got %+v", resp.Diagnostics)
	}
	if d, _ := client.GetSandbox(context.Background(), id); !d.Paused() {
		t.Fatalf("the read resumed the sandbox (state %s)", d.State)
	}

	resp, out := p.openEphemeral("e2b_sandbox_access", map[string]tftypes.Value{
		"sandbox_id": str(id), "resume": tftypes.NewValue(tftypes.Bool, true), "timeout": str("2m")})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	d, err := client.GetSandbox(context.Background(), id)
	if err != nil || d.State != e2b.SandboxStateRunning || stringOf(t, out["envd_access_token"]) != d.EnvdAccessToken {
		t.Fatalf("resume = true should resume and return the token: %+v %v", d, err)
	}

	resp, _ = p.openEphemeral("e2b_sandbox_access", map[string]tftypes.Value{"sandbox_id": str("inosuchsandbox")})
	if d := errorDiag(resp.Diagnostics); d == nil || !strings.Contains(d.Summary, "inosuchsandbox") {
		t.Fatalf("want an error naming the missing sandbox, got %+v", resp.Diagnostics)
	}
}

// Reading the access of a running sandbox does not move its end.
func TestSandboxAccessProtocolLeavesLifeAlone(t *testing.T) {
	p, client, _, id := newProtoSandbox(t)
	before, err := client.GetSandbox(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	resp, out := p.openEphemeral("e2b_sandbox_access", map[string]tftypes.Value{"sandbox_id": str(id)})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	after, err := client.GetSandbox(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !after.EndAt.Equal(before.EndAt) {
		t.Errorf("the read moved the sandbox's end from %v to %v", before.EndAt, after.EndAt)
	}
	if stringOf(t, out["envd_access_token"]) != after.EnvdAccessToken {
		t.Error("envd_access_token is not the sandbox's")
	}
	if !resp.RenewAt.IsZero() {
		t.Error("access details need no renewal")
	}
}

// An ephemeral sandbox that was opened and never closed is killed when the provider stops.
func TestEphemeralSandboxLeftoversKilledAtStop(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	resp, out := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{})
	p.noErrors("OpenEphemeralResource", resp.Diagnostics)
	id := stringOf(t, out["id"])
	if n := KillLeftoverEphemeralSandboxes(context.Background()); n != 1 {
		t.Fatalf("killed %d leftovers, want 1", n)
	}
	if _, err := testAccClient(t, srv).GetSandbox(context.Background(), id); !e2b.IsNotFound(err) {
		t.Fatalf("leftover %s should be gone: %v", id, err)
	}
	if n := KillLeftoverEphemeralSandboxes(context.Background()); n != 0 {
		t.Fatalf("a second stop killed %d sandboxes", n)
	}
}

// A create that outlives timeouts.open but made a sandbox: the sandbox is killed, since no state
// would ever track it.
func TestEphemeralSandboxProtocolTimedOutCreateKilled(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProviderAt(t, srv, slowCreateProxy(t, srv, 3*time.Second))
	timeouts := p.schema.EphemeralResourceSchemas["e2b_sandbox"].ValueType().(tftypes.Object).AttributeTypes["timeouts"]
	resp, _ := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{
		"timeouts": tftypes.NewValue(timeouts, map[string]tftypes.Value{"open": str("1s")}),
	})
	if d := errorDiag(resp.Diagnostics); d == nil || !strings.Contains(d.Detail, "has been killed") {
		t.Fatalf("want a timed-out create that was killed, got %+v", resp.Diagnostics)
	}
	if c := srv.Counters(); c.SandboxesCreated != 1 || c.SandboxesAlive != 0 {
		t.Fatalf("created %d, alive %d; want the timed-out sandbox killed", c.SandboxesCreated, c.SandboxesAlive)
	}
}

// A create interrupted (the CLI stops the provider, which cancels the open) after E2B made the
// sandbox: the error says the run was interrupted, and the sandbox is killed.
func TestEphemeralSandboxProtocolInterruptedCreateKilled(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProviderAt(t, srv, slowCreateProxy(t, srv, 3*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = waitForRequest(srv, "POST /v2/sandboxes", 30*time.Second)
		cancel()
	}()
	typ := p.schema.EphemeralResourceSchemas["e2b_sandbox"].ValueType()
	resp, err := p.server.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
		TypeName: "e2b_sandbox", Config: p.dynamicValue(typ, map[string]tftypes.Value{})})
	if err != nil {
		t.Fatal(err)
	}
	d := errorDiag(resp.Diagnostics)
	if d == nil || d.Summary != "Sandbox creation interrupted" || !strings.Contains(d.Detail, "has been killed") {
		t.Fatalf("want an interrupted create whose sandbox was killed, got %+v", resp.Diagnostics)
	}
	if c := srv.Counters(); c.SandboxesCreated != 1 || c.SandboxesAlive != 0 {
		t.Fatalf("created %d, alive %d; want the interrupted sandbox killed", c.SandboxesCreated, c.SandboxesAlive)
	}
}
