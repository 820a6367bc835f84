package provider

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// startMarkedProcess starts a long command in the sandbox whose arguments carry marker, and
// writes a file, both before a pause.
func startMarkedProcess(t *testing.T, envd *e2b.Envd, marker string) {
	t.Helper()
	ctx := context.Background()
	p, err := envd.StartProcess(ctx, e2b.StartProcessRequest{Process: e2b.ProcessConfig{Cmd: "/bin/bash",
		Args: []string{"-c", "sleep 600 # " + marker}}, Timeout: time.Hour})
	if err != nil {
		t.Fatalf("start process: %v", err)
	}
	_ = p.Close()
	if _, err := envd.WriteFile(ctx, "/home/user/"+marker, strings.NewReader("kept"), e2b.WriteOptions{}); err != nil {
		t.Fatalf("write file: %v", err)
	}
}

// checkColdBooted fails unless the marked process is gone and the file is still there.
func checkColdBooted(t *testing.T, envd *e2b.Envd, marker string) {
	t.Helper()
	waitNoProcess(t, envd, marker)
	rc, err := envd.ReadFile(context.Background(), "/home/user/"+marker, e2b.ReadOptions{})
	if err != nil {
		t.Fatalf("the file written before the pause: %v", err)
	}
	defer func() { _ = rc.Close() }()
	if data, _ := io.ReadAll(rc); string(data) != "kept" {
		t.Fatalf("the file written before the pause reads %q", data)
	}
}

// hasMarkedProcess reports whether a process running marker is alive.
func hasMarkedProcess(t *testing.T, envd *e2b.Envd, marker string) bool {
	t.Helper()
	procs, err := envd.ListProcesses(context.Background())
	if err != nil {
		t.Fatalf("list processes: %v", err)
	}
	for _, p := range procs {
		if strings.Contains(strings.Join(p.Config.Args, " "), marker) {
			return true
		}
	}
	return false
}

// e2b_sandbox_resume with memory = false cold-boots the sandbox: the process started before the
// pause is gone, the file written before it is there.
func TestSandboxResumeActionFromDiskProtocol(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	startMarkedProcess(t, envd, "cold-boot-marker")
	if !hasMarkedProcess(t, envd, "cold-boot-marker") {
		t.Fatal("the process is not running before the pause")
	}
	_, diags := p.invokeAction("e2b_sandbox_pause", map[string]tftypes.Value{"sandbox_id": str(id)})
	p.noErrors("pause", diags)
	progress, diags := p.invokeAction("e2b_sandbox_resume", map[string]tftypes.Value{"sandbox_id": str(id),
		"memory": tftypes.NewValue(tftypes.Bool, false)})
	p.noErrors("resume from disk", diags)
	if !strings.Contains(strings.Join(progress, "\n"), "from its disk") {
		t.Fatalf("progress does not say the resume is from disk: %q", progress)
	}
	checkColdBooted(t, envd, "cold-boot-marker")
}

// Where E2B refuses a resume from disk only, the action's error names memory and what to do, and
// the sandbox stays paused.
func TestSandboxResumeActionFromDiskRefusedProtocol(t *testing.T) {
	srv := newTestEmulatorWith(t, emulator.Options{DiskOnlyResumeOff: true})
	p := newProtoProvider(t, srv)
	client, _, id := protoSandbox(t, srv)
	_, diags := p.invokeAction("e2b_sandbox_pause", map[string]tftypes.Value{"sandbox_id": str(id)})
	p.noErrors("pause", diags)
	_, diags = p.invokeAction("e2b_sandbox_resume", map[string]tftypes.Value{"sandbox_id": str(id),
		"memory": tftypes.NewValue(tftypes.Bool, false)})
	d := errorDiag(diags)
	if d == nil || d.Attribute == nil || !strings.Contains(d.Detail, "Remove memory = false") {
		t.Fatalf("refused resume from disk: %+v", d)
	}
	if got, err := client.GetSandbox(context.Background(), id); err != nil || got.State != e2b.SandboxStatePaused {
		t.Fatalf("after the refusal: %+v %v", got, err)
	}
}
