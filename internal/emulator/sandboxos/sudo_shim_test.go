package sandboxos_test

import (
	"os"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// TestSudoShim: sandboxes with a private root have sudo on PATH, as E2B's
// base template does, and it sets up the environment sudo would: E2B's own
// SDK test (envVars.test.ts) runs `sudo echo "$FOO"` after a command whose
// FOO was scoped to it; the host gets no sudo.
func TestSudoShim(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	if !c.Srv.PrivateRoots() {
		t.Skip("private root filesystems unavailable here (see the emulator's log line above); the shim lives in them")
	}
	_, hostHadSudo := os.Lstat("/usr/bin/sudo")
	sb := c.Create(map[string]any{"envVars": map[string]any{"SANDBOX_WIDE": "kept-with-E"}})

	// E2B's SDK test: a command-scoped env var is gone, and sudo exits 0.
	st := c.StartProcess(sb, `echo "$FOO"`, map[string]any{"envs": map[string]any{"FOO": "bar"}}, nil).Collect()
	if st.Stdout != "bar\n" {
		t.Fatalf("scoped env: %q", st.Stdout)
	}
	if got := c.MustRun(sb, `sudo echo "$FOO"`); got != "\n" {
		t.Fatalf(`sudo echo "$FOO" printed %q`, got)
	}

	userUID := strings.TrimSpace(c.MustRun(sb, "id -u user"))
	for _, tc := range []struct{ cmd, want string }{
		{`command -v sudo`, "/usr/bin/sudo\n"},
		{`sudo sh -c 'echo "$USER $LOGNAME $HOME $SUDO_USER $SUDO_UID"'`, "root root /root user " + userUID + "\n"},
		{`sudo -u user sh -c 'echo "$USER $HOME"'`, "user /home/user\n"},
		{`sudo -uuser sh -c 'echo "$USER"'`, "user\n"},
		{`SECRET=s sudo sh -c 'echo "[$SECRET] [$SANDBOX_WIDE] [$E2B_SANDBOX]"'`, "[] [] []\n"},
		{`SECRET=s sudo -E sh -c 'echo "[$SECRET] [$SANDBOX_WIDE] $HOME"'`, "[s] [kept-with-E] /home/user\n"},
		{`SECRET=s OTHER=o sudo --preserve-env=SECRET sh -c 'echo "[$SECRET] [$OTHER]"'`, "[s] []\n"},
		{`sudo A=1 B='two words' sh -c 'echo "$A $B"'`, "1 two words\n"},
		{`sudo -i pwd`, "/root\n"},
		{`sudo -i echo 'a  b' '$HOME'`, "a  b $HOME\n"},
		{`sudo -s echo shell`, "shell\n"},
		{`sudo -nE true && sudo -v && sudo -l | tail -n 1`, "    (ALL : ALL) NOPASSWD: ALL\n"},
		{`sudo sh -c 'echo "$HTTP_PROXY"' | grep -c '^http://[^@]*@127.0.0.1:'`, "1\n"},
		{`sudo env | grep '^SUDO_COMMAND='`, "SUDO_COMMAND=/usr/bin/env\n"},
		{`sudo -u nobody-here true; echo $?`, "1\n"},
		{`sudo no-such-command-here; echo $?`, "1\n"},
		{`sudo; echo $?`, "1\n"},
	} {
		res := c.Run(sb, tc.cmd)
		if res.Stdout != tc.want {
			t.Errorf("%s\n got %q (stderr %q)\nwant %q", tc.cmd, res.Stdout, res.Stderr, tc.want)
		}
	}
	res := c.Run(sb, `sudo -u nobody-here true; sudo no-such-command-here`)
	if !strings.Contains(res.Stderr, "sudo: unknown user nobody-here") || !strings.Contains(res.Stderr, "sudo: no-such-command-here: command not found") {
		t.Fatalf("stderr %q", res.Stderr)
	}
	if _, err := os.Lstat("/usr/bin/sudo"); (err == nil) != (hostHadSudo == nil) {
		t.Fatal("the host's /usr/bin/sudo changed")
	}

	// A template step can use it too (E2B's builds run steps in a sandbox).
	b := c.RequestBuild(map[string]any{"name": "sudo-step"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": []map[string]any{
		{"type": "USER", "args": []string{"user"}},
		{"type": "RUN", "args": []string{`sudo sh -c 'echo "$USER" > /home/user/who'`}},
	}})
	if res := c.WaitBuild(b); res.Status != store.BuildReady {
		t.Fatalf("build: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
	if got := c.MustRun(c.Create(map[string]any{"templateID": "sudo-step"}), "cat /home/user/who"); got != "root\n" {
		t.Fatalf("step wrote %q", got)
	}
}
