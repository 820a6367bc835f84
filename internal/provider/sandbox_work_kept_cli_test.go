package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The rows of the table in the guide "Keeping a sandbox's work" (state of the sandbox at its
// destroy x CLI x what is kept), one test each. They run the CLI as a user does, because what the
// run prints is part of the promise: every CLI names the snapshot it took (OpenTofu shows no
// action progress, so snapshot_on_destroy reports in a warning), and a sandbox with nothing left
// to keep says so. Run them on each CLI of the compatibility table (TF_ACC_TERRAFORM_PATH).

// sandboxState puts the applied sandbox into the state of a row before its destroy.
type sandboxState func(t *testing.T, emu *emulator.Server, ws *harness.Workspace, id string)

// keptWorkConfig is a sandbox whose work is kept at its destroy, by snapshot_on_destroy or by the
// e2b_sandbox_snapshot action on a before_destroy trigger.
func keptWorkConfig(action bool, extra string) string {
	if action {
		return cliProviderBlock + `
resource "e2b_sandbox" "dev" {
  timeout = "15m"
` + extra + `
  lifecycle {
    action_trigger {
      events  = [before_destroy]
      actions = [action.e2b_sandbox_snapshot.keep]
    }
  }
}

action "e2b_sandbox_snapshot" "keep" {
  config {
    sandbox_id = caller.id
    name       = "dev-workspace"
  }
}
`
	}
	return cliProviderBlock + `
resource "e2b_sandbox" "dev" {
  timeout = "15m"
` + extra + `
  snapshot_on_destroy = {
    name = "dev-workspace"
  }
}
`
}

var snapshotReportRE = regexp.MustCompile(`Snapshot [a-z0-9-]+/dev-workspace:snap-[0-9a-f]+ of sandbox \w+\s+taken \(build [0-9a-f-]{36}`)

// checkWorkKept applies the configuration, writes work into the sandbox, puts it into the row's
// state, destroys it and checks: the destroy succeeds, no sandbox is left, and either the output
// names the snapshot and a sandbox started from the name holds the work, or (expired) the output
// says nothing was left to keep and no snapshot exists.
// The action rows name the Terraform they need (a before_destroy trigger: 1.16) and skip below it.
func checkWorkKept(t *testing.T, needs []*version.Version, extra string, state sandboxState, expired bool) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	action := len(needs) > 0
	if action {
		skipBelowTerraform(t, ws, needs...)
	}
	ctx := context.Background()
	ws.Write("main.tf", keptWorkConfig(action, extra))
	if r := ws.Apply(ctx); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Output())
	}
	ids := ws.SandboxIDsInState(ctx)
	if len(ids) != 1 {
		t.Fatalf("sandboxes in state: %v", ids)
	}
	id := ids[0]
	if _, err := sandboxEnvd(t, emu, id).WriteFile(ctx, workPath, strings.NewReader(workContent), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if state != nil {
		state(t, emu, ws, id)
	}
	var destroyArgs []string
	if expired {
		// The plan's refresh finds it gone and says so; a destroy that refreshes drops it silently
		// (the CLIs show no refresh warning there), so the destroy runs as if it expired after the
		// refresh: the snapshot finds nothing.
		p := ws.Run(ctx, "plan", "-no-color")
		if p.Err != nil || !strings.Contains(strings.Join(strings.Fields(p.Output()), " "), "Its work was not kept") && !action {
			t.Fatalf("the plan after the sandbox expired does not say its work was not kept: %v\n%s", p.Err, p.Output())
		}
		destroyArgs = []string{"-refresh=false"}
	}
	r := ws.Destroy(ctx, destroyArgs...)
	if r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
	out := strings.Join(strings.Fields(r.Output()), " ")
	if alive := emu.SandboxIDs(); len(alive) != 0 {
		t.Fatalf("alive after destroy: %v", alive)
	}
	client := testAccClient(t, emu)
	snaps, err := client.ListSnapshots(ctx, e2b.ListSnapshotsParams{SandboxID: id})
	if err != nil {
		t.Fatal(err)
	}
	if expired {
		if !strings.Contains(out, "no longer exists") || !strings.Contains(out, "Warning") {
			t.Fatalf("the destroy of an expired sandbox does not warn that nothing was kept:\n%s", r.Output())
		}
		if len(snaps) != 0 {
			t.Fatalf("snapshots of an expired sandbox: %v", snaps)
		}
		return
	}
	if !snapshotReportRE.MatchString(out) {
		t.Fatalf("the destroy's output does not name the snapshot and its build:\n%s", r.Output())
	}
	if own, latest := snapshotBuilds(t, emu, "dev-workspace"); len(own) != 1 || latest != own[0] {
		t.Fatalf("snapshots of the name: %v, the name starting %q; want one, started by the name", own, latest)
	}
	back, err := client.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "dev-workspace", Timeout: 300})
	if err != nil {
		t.Fatalf("start a sandbox from the snapshot's name: %v", err)
	}
	if got, err := readRemote(sandboxEnvd(t, emu, back.SandboxID), workPath); err != nil || got != workContent {
		t.Fatalf("the snapshot does not hold the work: %q, %v", got, err)
	}
}

// paused: the sandbox was paused by the configuration (paused = true), as at night.
func pausedState(t *testing.T, emu *emulator.Server, ws *harness.Workspace, id string) {
	t.Helper()
	if err := testAccClient(t, emu).PauseSandbox(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// pausedByConfig: the configuration pauses the sandbox (paused = true), applied after the work.
func pausedByConfig(action bool) sandboxState {
	return func(t *testing.T, _ *emulator.Server, ws *harness.Workspace, _ string) {
		t.Helper()
		ws.Write("main.tf", keptWorkConfig(action, "  paused = true\n"))
		if r := ws.Apply(context.Background()); r.Err != nil {
			t.Fatalf("apply paused = true: %v\n%s", r.Err, r.Output())
		}
	}
}

// expired: the sandbox's timeout ran out after the last apply.
func expiredState(t *testing.T, emu *emulator.Server, _ *harness.Workspace, id string) {
	t.Helper()
	if err := emu.Expire(id); err != nil {
		t.Fatal(err)
	}
}

// commandRunning: a process is still writing in the sandbox when it is destroyed.
func commandRunningState(t *testing.T, emu *emulator.Server, _ *harness.Workspace, id string) {
	t.Helper()
	stream, err := sandboxEnvd(t, emu, id).StartProcess(context.Background(), e2b.StartProcessRequest{
		Process: e2b.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-c", "while true; do date >> /home/user/work/log; sleep 1; done"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = stream.Close() // the process keeps running
}

func TestCLIWorkKept_snapshotOnDestroyRunning(t *testing.T) {
	checkWorkKept(t, nil, "", nil, false)
}

func TestCLIWorkKept_snapshotOnDestroyPaused(t *testing.T) {
	checkWorkKept(t, nil, "", pausedByConfig(false), false)
}

func TestCLIWorkKept_snapshotOnDestroyPausedByAction(t *testing.T) {
	checkWorkKept(t, nil, "", pausedState, false)
}

func TestCLIWorkKept_snapshotOnDestroyCommandRunning(t *testing.T) {
	checkWorkKept(t, nil, "", commandRunningState, false)
}

func TestCLIWorkKept_snapshotOnDestroyExpired(t *testing.T) {
	checkWorkKept(t, nil, "", expiredState, true)
}

func TestCLIWorkKept_actionRunning(t *testing.T) {
	checkWorkKept(t, []*version.Version{tfversion.Version1_14_0, version1_16_0}, "", nil, false)
}

func TestCLIWorkKept_actionPaused(t *testing.T) {
	checkWorkKept(t, []*version.Version{tfversion.Version1_14_0, version1_16_0}, "", pausedByConfig(true), false)
}

func TestCLIWorkKept_actionPausedByAction(t *testing.T) {
	checkWorkKept(t, []*version.Version{tfversion.Version1_14_0, version1_16_0}, "", pausedState, false)
}

func TestCLIWorkKept_actionCommandRunning(t *testing.T) {
	checkWorkKept(t, []*version.Version{tfversion.Version1_14_0, version1_16_0}, "", commandRunningState, false)
}

func TestCLIWorkKept_actionExpired(t *testing.T) {
	checkWorkKept(t, []*version.Version{tfversion.Version1_14_0, version1_16_0}, "", expiredState, true)
}
