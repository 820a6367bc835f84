package sandboxos_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

// startPrivateRoots starts an emulator whose sandboxes have private roots,
// or skips saying why the host cannot give them.
func startPrivateRoots(t *testing.T) (*emulatortest.Client, emulatortest.Sandbox) {
	t.Helper()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	if c.Machine(sb.SandboxID).Root() == nil {
		t.Skip("this host gives sandboxes no private root (the emulator's start-up log says why)")
	}
	return c, sb
}

// TestSandboxCannotReachTheHost: code in a sandbox reads no file outside
// its root (a secret file, the env file the emulator writes with the API
// key), through its path or through /proc/<pid>/root of the emulator or any
// other process; reads no host process's environment (the emulator's, or a
// process of the CI job holding a secret); and writes nothing on the host.
func TestSandboxCannotReachTheHost(t *testing.T) {
	t.Parallel()
	c, sb := startPrivateRoots(t)
	secret := "host-secret-" + ids.Hex(8)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret.txt")
	envFile := filepath.Join(dir, "emulator.env")
	for name, data := range map[string]string{secretFile: secret, envFile: "E2B_API_KEY=" + c.Srv.APIKey() + "\n"} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The emulator's own process (this test's) and a process of the CI job
	// beside it, each holding a secret in its environment.
	if err := os.Setenv("E2B_TEST_HOST_SECRET", secret); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Unsetenv("E2B_TEST_HOST_SECRET") })
	ci := exec.Command("sleep", "120")
	ci.Env = append(os.Environ(), "CI_DEPLOY_TOKEN="+secret)
	if err := ci.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ci.Process.Kill(); _ = ci.Wait() })

	q := strconv.Quote
	probe := strings.Join([]string{
		"cat " + q(secretFile) + " " + q(envFile),
		"for p in /proc/[0-9]* /proc/" + strconv.Itoa(os.Getpid()) + " /proc/" + strconv.Itoa(ci.Process.Pid) + "; do" +
			" cat $p/environ $p/root" + q(secretFile) + " $p/root" + q(envFile) + "; tr '\\0' '\\n' <$p/cmdline;" +
			" echo planted >$p/root" + q(filepath.Join(dir, "planted")) + "; done",
		"echo planted >" + q(filepath.Join(dir, "planted")),
		"ls -a / /proc",
	}, "; ")
	res := c.Run(sb, probe+" 2>/dev/null; true")
	for what, s := range map[string]string{"a host file": secret, "the API key": c.Srv.APIKey(), "the admin token": c.Srv.AdminToken()} {
		if strings.Contains(res.Stdout, s) {
			t.Errorf("the sandbox read %s:\n%s", what, res.Stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
		t.Error("the sandbox wrote a file on the host outside the data directory")
	}
	if strings.Contains(res.Stdout, "\n"+strconv.Itoa(os.Getpid())+"\n") || strings.Contains(res.Stdout, "\n"+strconv.Itoa(ci.Process.Pid)+"\n") {
		t.Errorf("the sandbox's /proc lists host processes:\n%s", res.Stdout)
	}
	// Its root can do what a VM's root does inside, and nothing to the host; without a user
	// namespace it mounts nothing at all (its capabilities would count on the host).
	userns := c.Machine(sb.SandboxID).Root().Tools.Userns
	out := c.MustRunAs(sb, "root", `mount -t tmpfs t /mnt && echo mounted; touch /sys/x 2>/dev/null || echo sys-read-only; `+
		`ls /dev | tr '\n' ' '; ls /sys/fs/cgroup 2>/dev/null | head -1; for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e "$f" ] && { echo $$ >"$f" 2>/dev/null && echo "joined $f"; }; done; true`)
	if strings.Contains(out, "mounted") != userns || !strings.Contains(out, "sys-read-only") || strings.Contains(out, "joined") {
		t.Errorf("the sandbox's root: %q (want a mount of its own, a read-only /sys and no cgroup it can leave its own for)", out)
	}
	for _, dev := range []string{"sda", "vda", "nvme0n1", "mem", "kmsg"} {
		if strings.Contains(" "+out, " "+dev+" ") {
			t.Errorf("the sandbox's /dev holds the host's %s: %q", dev, out)
		}
	}
}

// TestSandboxCannotReadAnotherSandbox: the other sandbox's files are
// neither at its data directory's host path nor under /proc/<pid>/root.
func TestSandboxCannotReadAnotherSandbox(t *testing.T) {
	t.Parallel()
	c, attacker := startPrivateRoots(t)
	victim := c.Create(map[string]any{})
	secret := "sandbox-secret-" + ids.Hex(8)
	c.MustRun(victim, "echo "+secret+" >/home/user/secret.txt; sleep 60 >/dev/null 2>&1 &")
	vdir := c.Machine(victim.SandboxID).Dir()
	q := strconv.Quote
	probe := "cat /proc/[0-9]*/root/home/user/secret.txt " + q(vdir+"/upper/home/user/secret.txt") +
		" /proc/[0-9]*/root" + q(vdir+"/merged/home/user/secret.txt") + " /proc/[0-9]*/root" + q(vdir+"/upper/home/user/secret.txt") + " 2>/dev/null; " +
		"grep -rs " + q(secret) + " /proc/[0-9]*/environ; true"
	if out := c.MustRun(attacker, probe); strings.Contains(out, secret) {
		t.Fatalf("a sandbox read another's file:\n%s", out)
	}
}

// TestSandboxCannotReadTheDataFolderInSharedHostDirs: every sandbox sees the host's /usr,
// /etc, /opt, /var and /srv; a data folder in one of them (here /var/tmp) holds the other
// sandboxes' layers, and stays hidden. Nor does a sandbox's root read the host's password
// hashes or SSH host keys through the /etc it sees.
func TestSandboxCannotReadTheDataFolderInSharedHostDirs(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("/var/tmp", "e2b-emulator-test-")
	if err != nil {
		t.Skipf("no /var/tmp to put the data folder in: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := emulatortest.Start(t, emulator.Options{DataDir: dir})
	attacker, victim := c.Create(map[string]any{}), c.Create(map[string]any{})
	if c.Machine(attacker.SandboxID).Root() == nil {
		t.Skip("this host gives sandboxes no private root (the emulator's start-up log says why)")
	}
	secret := "victim-secret-" + ids.Hex(8)
	c.MustRun(victim, "echo "+secret+" >/home/user/secret.txt")
	out := c.MustRun(attacker, "grep -rs "+secret+" "+dir+" /var/tmp 2>/dev/null | head -3; ls -A "+dir+" 2>&1; true")
	if strings.Contains(out, secret) {
		t.Fatalf("a sandbox read another sandbox's file in the data folder %s: %q", dir, out)
	}
	if strings.Contains(out, "sandboxes") {
		t.Fatalf("a sandbox lists the data folder %s: %q", dir, out)
	}
	shadow := c.MustRun(attacker, "cat /etc/shadow 2>&1; cat /etc/ssh/ssh_host_*_key 2>/dev/null; true")
	if strings.Contains(shadow, "$") {
		t.Fatalf("a sandbox reads password hashes or keys of the host: %q", shadow)
	}
	if host, err := os.ReadFile("/etc/shadow"); err == nil && len(host) > 0 && strings.Contains(shadow, strings.SplitN(string(host), "\n", 2)[0]) {
		t.Fatalf("a sandbox reads the host's /etc/shadow: %q", shadow)
	}
}
