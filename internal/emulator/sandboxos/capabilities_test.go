package sandboxos_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// Capability numbers (linux/capability.h).
var hostCaps = map[string]uint{
	"DAC_READ_SEARCH": 2, "LINUX_IMMUTABLE": 9, "NET_ADMIN": 12, "NET_RAW": 13, "IPC_LOCK": 14,
	"SYS_MODULE": 16, "SYS_RAWIO": 17, "SYS_PTRACE": 19, "SYS_PACCT": 20, "SYS_ADMIN": 21,
	"SYS_BOOT": 22, "SYS_NICE": 23, "SYS_RESOURCE": 24, "SYS_TIME": 25, "MKNOD": 27, "LEASE": 28,
	"AUDIT_CONTROL": 30, "MAC_OVERRIDE": 32, "MAC_ADMIN": 33, "SYSLOG": 34, "WAKE_ALARM": 35,
	"BLOCK_SUSPEND": 36, "PERFMON": 38, "BPF": 39,
}

var sandboxCaps = map[string]uint{"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "KILL": 5, "SETGID": 6, "SETUID": 7, "NET_BIND_SERVICE": 10}

// capSets reads CapBnd, CapEff, CapPrm, CapInh and CapAmb from a /proc/<pid>/status text.
func capSets(t *testing.T, status string) map[string]uint64 {
	t.Helper()
	sets := map[string]uint64{}
	for _, l := range strings.Split(status, "\n") {
		name, v, ok := strings.Cut(l, ":\t")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		sets[name] = n
	}
	if len(sets) != 5 {
		t.Fatalf("no capability sets in %q", status)
	}
	return sets
}

// TestSandboxRootHoldsNoHostCapabilities: where a sandbox has no user
// namespace of its own (a host that refuses one to root), its root shares
// the host's, so its commands (root's, user's, and the root sudo gives)
// hold none of the capabilities that reach beyond the sandbox: no module,
// mount, ptrace, raw I/O, device node, network administration or
// open_by_handle_at. Root still owns the sandbox's files: it chowns and
// writes them, and user writes its own.
func TestSandboxRootHoldsNoHostCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs sandboxes without a user namespace")
	}
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{WithoutUserns: true})
	sb := c.Create(map[string]any{})
	root := c.Machine(sb.SandboxID).Root()
	if root == nil {
		t.Skip("this host gives sandboxes no private root (the emulator's start-up log says why)")
	}
	if root.Tools.Userns {
		t.Fatal("WithoutUserns gave the sandbox a user namespace")
	}
	check := func(who, status string) {
		t.Helper()
		sets := capSets(t, status)
		for _, set := range []string{"CapBnd", "CapEff", "CapPrm", "CapInh", "CapAmb"} {
			for name, bit := range hostCaps {
				if sets[set]&(1<<bit) != 0 {
					t.Errorf("%s: %s holds CAP_%s (%s %016x)", who, set, name, set, sets[set])
				}
			}
		}
		for name, bit := range sandboxCaps {
			if sets["CapBnd"]&(1<<bit) == 0 {
				t.Errorf("%s: CapBnd lacks CAP_%s (%016x)", who, name, sets["CapBnd"])
			}
		}
	}
	// The commands still run in the sandbox's root and PID namespace, in their cwd, with their
	// environment (the dynamic loader's variables included).
	hostOnly := filepath.Join(t.TempDir(), "host-only")
	if err := os.WriteFile(hostOnly, []byte("host"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"root", "user"} {
		res := c.RunAs(sb, user, "pwd; cat /proc/1/comm; test -e "+hostOnly+" && echo host")
		if want := map[string]string{"root": "/root", "user": "/home/user"}[user] + "\nbash\n"; res.Stdout != want {
			t.Errorf("as %s: %q %q, want %q", user, res.Stdout, res.Stderr, want)
		}
	}
	envs := map[string]any{"envs": map[string]string{"LD_LIBRARY_PATH": "/nowhere", "GLIBC_TUNABLES": "glibc.malloc.check=0", "PLAIN": "x"}}
	if got := c.StartProcess(sb, `echo "$LD_LIBRARY_PATH $GLIBC_TUNABLES $PLAIN"`, envs, nil).Collect().Stdout; got != "/nowhere glibc.malloc.check=0 x\n" {
		t.Errorf("the command's environment: %q", got)
	}

	rootStatus := c.RunAs(sb, "root", "cat /proc/self/status")
	check("root", rootStatus.Stdout)
	if eff := capSets(t, rootStatus.Stdout)["CapEff"]; eff&(1<<sandboxCaps["CHOWN"]) == 0 {
		t.Errorf("root's command lacks CAP_CHOWN: %016x", eff)
	}
	check("user", c.MustRun(sb, "cat /proc/self/status"))
	check("sudo", c.MustRun(sb, "sudo cat /proc/self/status"))

	if got := c.MustRun(sb, "sudo id -u"); got != "0\n" {
		t.Errorf("sudo id -u: %q", got)
	}
	if got := c.MustRun(sb, "sudo sh -c 'touch /root/f && chown 1000:1000 /root/f && stat -c %u:%g /root/f'"); got != "1000:1000\n" {
		t.Errorf("root chowns a file: %q", got)
	}
	if got := c.MustRun(sb, "echo mine >~/own && cat ~/own && stat -c %u ~/own"); got != "mine\n1000\n" {
		t.Errorf("user writes its own file: %q", got)
	}
	for _, cmd := range []string{"mount -t tmpfs x /mnt", "mknod /tmp/disk b 8 0"} {
		if res := c.RunAs(sb, "root", cmd); res.End["exitCode"] == nil {
			t.Errorf("root in the sandbox ran %q: %q %q", cmd, res.Stdout, res.Stderr)
		}
	}

	// The boot ID shown at every boot is the sandbox's, and showing it runs none of the
	// sandbox's programs: a mount its root planted would hold the emulator's capabilities.
	plant := `printf '#!/bin/sh\ngrep CapEff /proc/self/status >/root/planted-mount-ran\nexec /usr/bin/mount.real "$@"\n' >/tmp/m && chmod +x /tmp/m && ` +
		`mv /usr/bin/mount /usr/bin/mount.real && for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin; do cp /tmp/m $d/mount; done`
	c.MustRunAs(sb, "root", plant)
	c.PauseAndResume(sb, map[string]any{"memory": false})
	if res := c.RunAs(sb, "root", "cat /root/planted-mount-ran"); res.Stdout != "" {
		t.Errorf("the emulator ran the sandbox's mount: %s", res.Stdout)
	}
	if host, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil && c.BootID(sb) == strings.TrimSpace(string(host)) {
		t.Error("commands see the host's boot ID")
	}
}

// TestSharedLayoutRootHoldsNoHostCapabilities: in the shared layout
// (isolation none), whose root is the host's, root's and user's commands
// hold a container's capabilities only; root still chowns its files and
// user's commands keep user's IDs.
func TestSharedLayoutRootHoldsNoHostCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the shared layout's commands as root")
	}
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Isolation: "none"})
	sb := c.Create(map[string]any{})
	for _, user := range []string{"root", "user"} {
		res := c.RunAs(sb, user, "cat /proc/self/status")
		sets := capSets(t, res.Stdout)
		for name, bit := range hostCaps {
			if sets["CapBnd"]&(1<<bit) != 0 || sets["CapEff"]&(1<<bit) != 0 {
				t.Errorf("%s holds CAP_%s: %016x %016x", user, name, sets["CapBnd"], sets["CapEff"])
			}
		}
	}
	if got := c.MustRunAs(sb, "root", "cd $HOME && touch f && chown 1000:1000 f && stat -c %u:%g f"); got != "1000:1000\n" {
		t.Errorf("root chowns its file: %q", got)
	}
	if got := c.MustRun(sb, "id -u; id -g"); got != "1000\n1000\n" {
		t.Errorf("user's IDs: %q", got)
	}
	envs := map[string]any{"envs": map[string]string{"LD_LIBRARY_PATH": "/nowhere", "PLAIN": "x"}}
	if got := c.StartProcess(sb, `echo "$LD_LIBRARY_PATH $PLAIN"`, envs, nil).Collect().Stdout; got != "/nowhere x\n" {
		t.Errorf("the command's environment: %q", got)
	}
}

// TestCapDropperIsRootsAlone: the emulator's executable drops capabilities
// only for root; a set-user-ID copy (sudo's) that another user runs so
// refuses and runs nothing, though its effective user is root.
func TestCapDropperIsRootsAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the executable as another user")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "capdrop-") // t.TempDir's parent is closed to uid 1000
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	exe := filepath.Join(dir, "e2b-emulator")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{dir: 0o755, exe: 0o755 | os.ModeSetuid} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	var out []byte
	// A fork elsewhere in this test binary may hold the copy open for writing a moment longer.
	for try := 0; try < 100; try++ {
		cmd := exec.Command(exe, "--e2b-sandbox-drop-caps", "--", "/bin/echo", "ran")
		cmd.Dir = "/" // the root it would chroot into: the host's
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1000, Gid: 1000}}
		if out, err = cmd.CombinedOutput(); !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 || strings.Contains(string(out), "ran") {
		t.Fatalf("as uid 1000: %v %q", err, out)
	}
}

// TestStartingASandboxRunsNoneOfItsPrograms: a snapshot (or a template)
// may have replaced any program of its root; starting a sandbox from it
// (its init, its volumes' mount points) runs none of them, since they would
// run with the emulator's powers (in the init, or in the holder's namespace,
// which holds the host's tree). A link planted at a volume's path does not
// lead the mount out of the root.
func TestStartingASandboxRunsNoneOfItsPrograms(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("bind mounts into sandbox namespaces need root")
	}
	t.Parallel()
	// With a user namespace, showing the boot ID runs the root's sh, mount and umount in the
	// sandbox's own namespaces, with no more powers than its root has.
	for name, tc := range map[string]struct {
		opts     emulator.Options
		programs string
	}{
		"userns":         {emulator.Options{}, "mkdir rmdir"},
		"without userns": {emulator.Options{WithoutUserns: true}, "mkdir rmdir mount umount"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := emulatortest.Start(t, tc.opts)
			sb := c.Create(map[string]any{})
			if !c.Srv.PrivateRoots() {
				t.Skip("private root filesystems unavailable here (see the emulator's log line above)")
			}
			c.MustRunAs(sb, "root", `for p in `+tc.programs+`; do `+
				`printf '#!/bin/sh\necho %s >>/root/planted-ran\nexec /usr/bin/%s.real "$@"\n' $p $p >/tmp/$p && chmod +x /tmp/$p && `+
				`mv /usr/bin/$p /usr/bin/$p.real && cp /tmp/$p /usr/bin/$p && cp /tmp/$p /usr/local/bin/$p; done && ln -s /etc /data-link`)
			st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{"name": "planted"})
			emulatortest.WantStatus(t, "snapshot", st, data, http.StatusCreated)
			c.CreateVolume("planted-vol")
			mounts := []map[string]string{{"name": "planted-vol", "path": "/mnt/vol/deep"}, {"name": "planted-vol", "path": "/data-link/vol"}}
			from := c.Create(map[string]any{"templateID": "planted", "volumeMounts": mounts})
			if res := c.RunAs(from, "root", "cat /root/planted-ran; ls -a /dev | grep -x .host"); res.Stdout != "" {
				t.Errorf("the emulator ran the sandbox's programs (or left its mount point of the host): %s", res.Stdout)
			}
			if got := c.MustRunAs(from, "root", "echo v >/mnt/vol/deep/f && cat /etc/vol/f"); got != "v\n" {
				t.Errorf("the volume at its paths: %q", got)
			}
			if _, err := os.Stat("/etc/vol"); err == nil {
				t.Error("a link in the sandbox led the mount point to the host's /etc")
			}
		})
	}
}
