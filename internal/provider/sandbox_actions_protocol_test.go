package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// The sandbox lifecycle actions driven through the protocol server, as Terraform 1.14+ would:
// these run on every CLI, the CLI tests in sandbox_actions_cli_test.go on Terraform 1.16.

// invokeAction runs the action of type typ with vals as its config.
func (p *protoProvider) invokeAction(typ string, vals map[string]tftypes.Value) (progress []string, diags []*tfprotov6.Diagnostic) {
	p.t.Helper()
	cfg := p.dynamicValue(p.schema.ActionSchemas[typ].Schema.ValueType(), vals)
	return p.invokeType(context.Background(), typ, cfg, nil)
}

func TestSandboxSnapshotActionProtocol(t *testing.T) {
	p, _, _, id := newProtoSandbox(t)
	for i := 1; i <= 2; i++ {
		progress, diags := p.invokeAction("e2b_sandbox_snapshot", map[string]tftypes.Value{"sandbox_id": str(id), "name": str("nightly")})
		p.noErrors("snapshot", diags)
		last := progress[len(progress)-1]
		want := regexp.MustCompile(`^Snapshot [a-z0-9-]+/nightly:snap-[0-9a-f]{16} of sandbox ` + id + ` taken \(build [0-9a-f-]{36}, snapshot ` +
			string(rune('0'+i)) + ` of the name\)\. Start a sandbox from the newest snapshot with template = "[a-z0-9-]+/nightly"`)
		if !want.MatchString(last) {
			t.Fatalf("snapshot %d reported %q", i, last)
		}
	}
	_, diags := p.invokeAction("e2b_sandbox_snapshot", map[string]tftypes.Value{"sandbox_id": str("gone0000000000000000"), "name": str("nightly")})
	if d := errorDiag(diags); d == nil || !strings.Contains(d.Detail, "no longer exists") || !strings.Contains(d.Detail, "nothing of it is left to keep") {
		t.Fatalf("snapshot of a missing sandbox: %+v", d)
	}
}

func TestSandboxPauseResumeRefreshActionsProtocol(t *testing.T) {
	p, client, _, id := newProtoSandbox(t)
	ctx := context.Background()
	stateOf := func() *e2b.SandboxDetail {
		d, err := client.GetSandbox(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := stateOf().EndAt
	_, diags := p.invokeAction("e2b_sandbox_refresh", map[string]tftypes.Value{"sandbox_id": str(id), "duration": str("1h")})
	p.noErrors("refresh", diags)
	if got := stateOf().EndAt; !got.After(before.Add(30 * time.Minute)) {
		t.Fatalf("refresh of 1h on a 10m sandbox: end %s, was %s", got, before)
	}

	for _, memory := range []bool{true, false} {
		_, diags = p.invokeAction("e2b_sandbox_pause", map[string]tftypes.Value{"sandbox_id": str(id), "memory": tftypes.NewValue(tftypes.Bool, memory)})
		p.noErrors("pause", diags)
		if s := stateOf().State; s != e2b.SandboxStatePaused {
			t.Fatalf("after pause (memory %v): %s", memory, s)
		}
		_, diags = p.invokeAction("e2b_sandbox_pause", map[string]tftypes.Value{"sandbox_id": str(id)})
		p.noErrors("pause of a paused sandbox", diags)
		progress, diags := p.invokeAction("e2b_sandbox_resume", map[string]tftypes.Value{"sandbox_id": str(id), "run_for": str("20m")})
		p.noErrors("resume", diags)
		if s := stateOf().State; s != e2b.SandboxStateRunning || !strings.Contains(progress[len(progress)-1], "running again") {
			t.Fatalf("after resume (memory %v): %s, %q", memory, s, progress)
		}
	}
	_, diags = p.invokeAction("e2b_sandbox_refresh", map[string]tftypes.Value{"sandbox_id": str(id), "duration": str("2h")})
	if d := errorDiag(diags); d == nil || !strings.Contains(d.Detail, "duration") {
		t.Fatalf("refresh beyond an hour should be refused naming duration: %+v", d)
	}
}

func TestSandboxDownloadActionProtocol(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: "mkdir -p ~/reports && echo ok > ~/reports/junit.xml && ln -s /etc ~/reports/etc"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	dest := filepath.Join(t.TempDir(), "reports")
	progress, diags := p.invokeAction("e2b_sandbox_download", map[string]tftypes.Value{
		"sandbox_id": str(id), "path": str("/home/user/reports"), "destination": str(dest),
	})
	p.noErrors("download", diags)
	if b, err := os.ReadFile(filepath.Join(dest, "junit.xml")); err != nil || string(b) != "ok\n" {
		t.Fatalf("junit.xml: %q %v", b, err)
	}
	if last := progress[len(progress)-1]; !strings.Contains(last, "1 files") || !strings.Contains(last, "Links not followed (not copied): etc.") {
		t.Fatalf("download reported %q", last)
	}
}
