package emulator

import "testing"

func TestPerCommandEnvsReachNestedShellsAndStayWithTheirCommand(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{"envVars": map[string]string{"SANDBOX_WIDE": "create", "SHADOWED": "create"}})
	withEnvs := map[string]any{"envs": map[string]string{"FOO": "bar", "SHADOWED": "command"}}
	res := c.startProcess(sb, `bash -c 'echo "$FOO|$SANDBOX_WIDE|$SHADOWED"'; sh -c 'echo "$FOO"'`, withEnvs, nil).collect()
	if res.stdout != "bar|create|command\nbar\n" {
		t.Fatalf("nested shells of a command with envs printed %q (stderr %q)", res.stdout, res.stderr)
	}
	if out := c.mustRun(sb, `bash -c 'echo "${FOO-unset}|$SHADOWED"'`); out != "unset|create\n" {
		t.Fatalf("the next command sees %q: per-command envs must not outlive their command", out)
	}
}
