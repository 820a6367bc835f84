package sandboxos_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// TestCommandsRunAsTheirUser: as on E2B, a command runs with the IDs of the
// user the request names (whoami, id -u), its home and environment are that
// user's, and the kernel's permissions are the user's: user cannot list a
// root-only 0700 folder that root can.
func TestCommandsRunAsTheirUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host can give a sandbox's commands another user's IDs")
	}
	t.Parallel()
	for _, isolation := range []string{"auto", "none"} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			c := emulatortest.Start(t, emulator.Options{Isolation: isolation})
			sb := c.Create(map[string]any{})
			wantHome := map[string]string{"user": "/home/user", "root": "/root"}
			if !c.Srv.PrivateRoots() {
				wantHome = nil // the shared layout keeps the sandbox's own home folder for every user
			}
			for _, user := range []string{"user", "root"} {
				res := c.RunAs(sb, user, `echo "$(whoami) $(id -u) $(id -g) $USER $LOGNAME"; echo "$HOME"; pwd`)
				lines := strings.Split(res.Stdout, "\n")
				uid := map[string]string{"user": "1000", "root": "0"}[user]
				name := user
				if !c.Srv.PrivateRoots() && len(lines) > 0 {
					name, _, _ = strings.Cut(lines[0], " ") // the shared layout's /etc is the host's: its name for uid 1000
				}
				if len(lines) < 3 || lines[0] != name+" "+uid+" "+uid+" "+user+" "+user {
					t.Fatalf("as %s: %q %q", user, res.Stdout, res.Stderr)
				}
				if h := wantHome[user]; h != "" && (lines[1] != h || lines[2] != h) {
					t.Fatalf("as %s: home and cwd %q, want %s", user, lines[1:3], h)
				}
			}

			dir := "${TMPDIR:-/tmp}/root-only" // the shared layout without mount namespaces sets TMPDIR to its own
			c.MustRun(sb, "true")              // user's own command works
			if res := c.RunAs(sb, "root", "mkdir -m 0700 "+dir+" && touch "+dir+"/secret && ls "+dir); res.Stdout != "secret\n" {
				t.Fatalf("root lists its own folder: %q %q", res.Stdout, res.Stderr)
			}
			res := c.Run(sb, "ls "+dir)
			if res.Stdout != "" || !strings.Contains(res.Stderr, "Permission denied") || res.End["exitCode"] == nil {
				t.Fatalf("user lists a root-only folder: %q %q %v", res.Stdout, res.Stderr, res.End)
			}

			// What user's commands write is user's: uid 1000, as root sees it.
			c.MustRun(sb, "echo mine > ~/by-user.txt")
			if got := c.RunAs(sb, "root", "stat -c '%u:%g' "+homeOfUser(c)+"/by-user.txt"); got.Stdout != "1000:1000\n" {
				t.Fatalf("a file user's command wrote: %q %q", got.Stdout, got.Stderr)
			}
		})
	}
}

// homeOfUser is where user's home is for a command run as root.
func homeOfUser(c *emulatortest.Client) string {
	if c.Srv.PrivateRoots() {
		return "/home/user"
	}
	return "$HOME"
}

// TestSudoReallyBecomesRoot: E2B's user has passwordless sudo, which makes
// a command root (or the user -u names) for the kernel too.
func TestSudoReallyBecomesRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host can make the sandboxes' sudo set-user-ID root")
	}
	t.Parallel()
	c := startRootfsServer(t, "auto")
	sb := c.Create(map[string]any{})
	for cmd, want := range map[string]string{
		"sudo id -u":  "0\n",
		"sudo whoami": "root\n",
		"sudo ls /root >/dev/null && echo listed":               "listed\n",
		"sudo -u user id -un":                                   "user\n",
		"sudo sh -c 'id -u; id -g' | tr '\\n' ' '":              "0 0 ",
		"sudo touch /etc/by-sudo && stat -c %U:%G /etc/by-sudo": "root:root\n",
	} {
		if got := c.MustRun(sb, cmd); got != want {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
	// Without sudo, user is no more than user.
	if res := c.Run(sb, "touch /etc/not-mine"); !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("user wrote /etc: %q %q", res.Stdout, res.Stderr)
	}
}

// TestBuildStepsRunAsTheirUser: a template's RUN steps run with the IDs of
// the step's user (its USER, or the user the step names), and what COPY
// brings belongs to the step's user.
func TestBuildStepsRunAsTheirUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host can give a build's commands another user's IDs")
	}
	t.Parallel()
	c := startRootfsServer(t, "auto")
	b := c.RequestBuild(map[string]any{"name": "user-steps"})
	c.UploadContext(b.TemplateID, "hashf", emulatortest.ContextArchive(t, map[string]string{"f.txt": "f\n"}))
	c.UploadContext(b.TemplateID, "hashd", emulatortest.ContextArchive(t, map[string]string{"d/": "", "d/x.txt": "x\n"}))
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": []map[string]any{
		{"type": "RUN", "args": []string{`echo "$(id -un) $(id -u)" > ~/default-step`}},
		{"type": "RUN", "args": []string{`(touch /etc/by-user 2>&1 || true) > ~/denied`}},
		{"type": "USER", "args": []string{"root"}},
		{"type": "RUN", "args": []string{`echo "$(id -un) $(id -u)" > /root-step && mkdir -m 0700 /secret`}},
		{"type": "RUN", "args": []string{`echo "$(id -un)" > /tmp/named-step`, "user"}},
		{"type": "COPY", "args": []string{"f.txt", "/home/user/copied.txt", "", ""}, "filesHash": "hashf"},
		{"type": "COPY", "args": []string{"d", "/home/user/", "", ""}, "filesHash": "hashd"},
		{"type": "USER", "args": []string{"user"}},
		{"type": "COPY", "args": []string{"f.txt", "/home/user/copied-as-user.txt", "", ""}, "filesHash": "hashf"},
	}})
	if res := c.WaitBuild(b); res.Status != store.BuildReady {
		t.Fatalf("build: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
	sb := c.Create(map[string]any{"templateID": "user-steps"})
	got := c.MustRunAs(sb, "root", `cat /home/user/default-step /root-step /tmp/named-step; grep -c 'Permission denied' /home/user/denied; `+
		`stat -c '%U %a' /secret /home/user/copied.txt /home/user/copied-as-user.txt /home/user/x.txt /home/user`)
	// A folder copied into user's home as root brings root's files, and leaves the home user's.
	want := "user 1000\nroot 0\nuser\n1\nroot 700\nroot 644\nuser 644\nroot 644\nuser 755\n"
	if got != want {
		t.Fatalf("build steps left\n%s\nwant\n%s", got, want)
	}
}

// TestDevFuseIsOpenToEveryone: E2B's guests have /dev/fuse with mode 0666,
// which user can open; the host's own node keeps its mode.
func TestDevFuseIsOpenToEveryone(t *testing.T) {
	host, err := os.Stat("/dev/fuse")
	if err != nil || host.Mode()&os.ModeCharDevice == 0 || os.Geteuid() != 0 {
		t.Skip("the host has no /dev/fuse for sandboxes, or the emulator is not root and cannot make a node of it")
	}
	t.Parallel()
	c := startRootfsServer(t, "auto")
	sb := c.Create(map[string]any{})
	if got := c.MustRun(sb, `stat -c '%a %t:%T' /dev/fuse; exec 3<>/dev/fuse && echo opened`); got != "666 a:e5\nopened\n" {
		t.Fatalf("/dev/fuse in the sandbox: %q", got)
	}
	if now, err := os.Stat("/dev/fuse"); err != nil || now.Mode() != host.Mode() {
		t.Fatalf("the host's /dev/fuse changed: %v -> %v (%v)", host.Mode(), now.Mode(), err)
	}
}

// TestSudoCopyIsNoHostRoot: the set-user-ID sudo lies in the data folder,
// which other users of the host cannot enter, and outside a sandbox it
// refuses to act even for root.
func TestSudoCopyIsNoHostRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host makes the set-user-ID sudo")
	}
	t.Parallel()
	dataDir := t.TempDir()
	c := emulatortest.Start(t, emulator.Options{DataDir: dataDir})
	if !c.Srv.PrivateRoots() {
		t.Skip("private root filesystems unavailable here (see the emulator's log line above); sudo lives in them")
	}
	sudo := filepath.Join(dataDir, "base", "host", "usr", "bin", "sudo")
	if st, err := os.Stat(sudo); err != nil || st.Mode()&os.ModeSetuid == 0 {
		t.Fatalf("%s: %v %v", sudo, st, err)
	}
	cmd := exec.Command(sudo, "id", "-u")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("another host user ran the sudo copy: %q", out)
	}
	out, err := exec.Command(sudo, "id", "-u").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "works only inside an E2B emulator sandbox") {
		t.Fatalf("the sudo copy on the host: %v %q", err, out)
	}
}

// TestPtyRunsAsItsUser: a terminal's shell is its user's too, and user's
// terminal can use sudo.
func TestPtyRunsAsItsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host can give a sandbox's commands another user's IDs")
	}
	t.Parallel()
	c := startRootfsServer(t, "auto")
	sb := c.Create(map[string]any{})
	for user, want := range map[string]string{"user": "as:user:1000:sudo:0", "root": "as:root:0:sudo:0"} {
		ps := c.OpenStream(sb, "process.Process/Start", map[string]any{
			"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", `echo "as:$(whoami):$(id -u):sudo:$(sudo id -u)"`}},
			"pty":     map[string]any{"size": map[string]any{"cols": 80, "rows": 24}},
		}, map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"))})
		ps.ExpectStart()
		var out strings.Builder
		ps.PTYUntil(&out, want)
		ps.Collect()
	}
}
