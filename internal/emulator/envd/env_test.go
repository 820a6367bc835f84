package envd_test

import (
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestPerCommandEnvsReachNestedShellsAndStayWithTheirCommand(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"envVars": map[string]string{"SANDBOX_WIDE": "create", "SHADOWED": "create"}})
	withEnvs := map[string]any{"envs": map[string]string{"FOO": "bar", "SHADOWED": "command"}}
	res := c.StartProcess(sb, `bash -c 'echo "$FOO|$SANDBOX_WIDE|$SHADOWED"'; sh -c 'echo "$FOO"'`, withEnvs, nil).Collect()
	if res.Stdout != "bar|create|command\nbar\n" {
		t.Fatalf("nested shells of a command with envs printed %q (stderr %q)", res.Stdout, res.Stderr)
	}
	if out := c.MustRun(sb, `bash -c 'echo "${FOO-unset}|$SHADOWED"'`); out != "unset|create\n" {
		t.Fatalf("the next command sees %q: per-command envs must not outlive their command", out)
	}
}
