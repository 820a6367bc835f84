package sandboxos_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// startRootfsServer starts an emulator whose sandboxes have private roots
// in the given isolation mode, or skips saying why they are unavailable.
func startRootfsServer(t *testing.T, isolation string) *emulatortest.Client {
	t.Helper()
	c := emulatortest.Start(t, emulator.Options{Isolation: isolation})
	if !c.Srv.PrivateRoots() {
		t.Skipf("private root filesystems unavailable here (isolation %s; see the emulator's log line above)", isolation)
	}
	return c
}

func hostAbsent(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("%s was written on the host", p)
		}
	}
}

// TestRootfsLeavesHostUntouched writes system paths from commands and the
// files API, in both namespace modes: the sandbox sees them, the host does
// not, and another sandbox does not either.
func TestRootfsLeavesHostUntouched(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"auto", "userns"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := startRootfsServer(t, mode)
			tag := ids.New("emu", 10)
			bin, etc, opt := "/usr/local/bin/"+tag, "/etc/"+tag, "/opt/"+tag
			a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
			c.MustRunAs(a, "root", "echo bin > "+bin+" && chmod +x "+bin+" && echo etc > "+etc+" && mkdir -p /app && echo app > /app/f && rm /etc/hostname")
			st, data := c.Upload(a, opt, strings.NewReader("opt\n"), nil)
			emulatortest.WantStatus(t, "upload /opt", st, data, http.StatusOK)
			hostAbsent(t, bin, etc, opt, "/app/f")
			if _, err := os.Stat("/etc/hostname"); err != nil && os.IsNotExist(err) {
				t.Log("host has no /etc/hostname; the deletion check is vacuous")
			}
			got := c.MustRun(a, "cat "+bin+" "+etc+" "+opt+" /app/f; test -e /etc/hostname || echo gone; command -v bash; test -d /proc/self && echo proc; test -c /dev/null && echo dev")
			if got != "bin\netc\nopt\napp\ngone\n/usr/bin/bash\nproc\ndev\n" && got != "bin\netc\nopt\napp\ngone\n/bin/bash\nproc\ndev\n" {
				t.Fatalf("sandbox a sees %q", got)
			}
			if st, data := c.Download(a, etc); st != http.StatusOK || string(data) != "etc\n" {
				t.Fatalf("files API reads %s: %d %q", etc, st, data)
			}
			if res := c.Run(b, "cat "+bin+" "+etc+" "+opt+" /app/f"); res.End["exitCode"] == nil {
				t.Fatalf("sandbox b sees sandbox a's files: %q", res.Stdout)
			}
			if st, _ := c.Download(b, opt); st != http.StatusNotFound {
				t.Fatalf("sandbox b downloads %s: %d", opt, st)
			}
			// Absolute symlinks lead inside the sandbox, never to the host.
			c.MustRun(a, "ln -s "+etc+"-target /home/user/filelink && ln -s /usr/local /home/user/dirlink")
			for _, p := range []string{"/home/user/filelink", "/home/user/dirlink/" + tag + "-via-link"} {
				st, data := c.Upload(a, p, strings.NewReader("through a link"), nil)
				emulatortest.WantStatus(t, "upload "+p, st, data, http.StatusOK)
			}
			hostAbsent(t, etc+"-target", "/usr/local/"+tag+"-via-link")
			if got := c.MustRun(a, "cat "+etc+"-target /usr/local/"+tag+"-via-link"); got != "through a linkthrough a link" {
				t.Fatalf("link targets hold %q", got)
			}
		})
	}
}

// TestRootfsSnapshotAndForkCaptureTheWholeLayer snapshots a sandbox that
// changed /opt, /etc and its home, and forks it: both copies see every change.
func TestRootfsSnapshotAndForkCaptureTheWholeLayer(t *testing.T) {
	t.Parallel()
	c := startRootfsServer(t, "auto")
	sb := c.Create(map[string]any{})
	c.MustRunAs(sb, "root", "mkdir -p /opt/tool && echo v1 > /opt/tool/version && echo home > /home/user/h && rm -f /etc/hostname && mkdir -p /etc/conf.d && echo c > /etc/conf.d/x")
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/snapshots", map[string]any{"name": "optsnap"})
	emulatortest.WantStatus(t, "snapshot", st, data, http.StatusCreated)
	c.MustRunAs(sb, "root", "echo v2 > /opt/tool/version")
	check := func(what string, s emulatortest.Sandbox, version string) {
		t.Helper()
		want := version + "\nhome\nc\nno hostname\n"
		if got := c.MustRun(s, "cat /opt/tool/version ~/h /etc/conf.d/x; test -e /etc/hostname || echo no hostname"); got != want {
			t.Fatalf("%s sees %q, want %q", what, got, want)
		}
	}
	check("sandbox from snapshot", c.Create(map[string]any{"templateID": "optsnap"}), "v1")
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/fork", map[string]any{"count": 1})
	emulatortest.WantStatus(t, "fork", st, data, http.StatusCreated)
	forks := emulatortest.Decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(forks) != 1 || forks[0].Sandbox == nil {
		t.Fatalf("fork %s", data)
	}
	fork := emulatortest.Sandbox{SandboxID: forks[0].Sandbox.SandboxID, EnvdAccessToken: forks[0].Sandbox.EnvdAccessToken}
	check("fork", fork, "v2")
	c.MustRunAs(fork, "root", "echo fork > /opt/tool/version")
	if got := c.MustRun(sb, "cat /opt/tool/version"); got != "v2\n" {
		t.Fatalf("the fork's write reached its source: %q", got)
	}
}

// TestRootfsBuildWritesSystemPaths builds a template whose steps write
// /usr/local/bin and /etc: the host is untouched, sandboxes see the files.
func TestRootfsBuildWritesSystemPaths(t *testing.T) {
	t.Parallel()
	c := startRootfsServer(t, "auto")
	tag := ids.New("emubuild", 8)
	b := c.RequestBuild(map[string]any{"name": "sysbuild"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": []map[string]any{
		{"type": "RUN", "args": []string{"printf '#!/bin/sh\\necho tool-ran\\n' > /usr/local/bin/" + tag + " && chmod +x /usr/local/bin/" + tag, "root"}},
		{"type": "RUN", "args": []string{"echo conf > /etc/" + tag + " && mkdir -p /app && rm -f /etc/hostname", "root"}},
		{"type": "WORKDIR", "args": []string{"/app"}},
	}})
	res := c.WaitBuild(b)
	if res.Status != store.BuildReady {
		t.Fatalf("build %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
	hostAbsent(t, "/usr/local/bin/"+tag, "/etc/"+tag, "/app")
	sb := c.Create(map[string]any{"templateID": "sysbuild"})
	if got := c.MustRun(sb, tag+"; cat /etc/"+tag+"; pwd; test -e /etc/hostname || echo gone"); got != "tool-ran\nconf\n/app\ngone\n" {
		t.Fatalf("sandbox sees %q", got)
	}
}

// TestRootfsImageStore builds from an image in the local store (a directory
// and a tar archive): the build runs on the image's files, not the host's.
func TestRootfsImageStore(t *testing.T) {
	t.Parallel()
	images := t.TempDir()
	img := filepath.Join(images, "mini_1")
	makeMiniImage(t, img)
	if out, err := exec.Command("tar", "-czf", filepath.Join(images, "packed:2.tar.gz"), "-C", img, ".").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	c := emulatortest.Start(t, emulator.Options{ImageStore: images})
	if !c.Srv.PrivateRoots() {
		t.Skip("private root filesystems unavailable here (see the emulator's log line above)")
	}
	for _, image := range []string{"mini:1", "packed:2"} {
		name := strings.NewReplacer(":", "-").Replace(image)
		b := c.RequestBuild(map[string]any{"name": name})
		c.StartBuild(b, map[string]any{"fromImage": image, "steps": []map[string]any{
			{"type": "RUN", "args": []string{"cat /image-marker > /home/user/seen; test -e /usr/bin/apt-get && echo host-apt >> /home/user/seen; true"}},
		}})
		res := c.WaitBuild(b)
		if res.Status != store.BuildReady || !strings.Contains(emulatortest.LogText(res.LogEntries), "from the local image store") {
			t.Fatalf("%s: %+v\n%s", image, res.Reason, emulatortest.LogText(res.LogEntries))
		}
		sb := c.Create(map[string]any{"templateID": name})
		if got := c.MustRun(sb, "cat /home/user/seen"); got != "mini image\n" {
			t.Fatalf("%s: sandbox sees %q", image, got)
		}
	}
}

// makeMiniImage writes a small root filesystem: bash, cat and their
// libraries from the host, and a marker file.
func makeMiniImage(t *testing.T, dir string) {
	t.Helper()
	files := []string{}
	var copies [][2]string // (host file, image path) for the programs themselves
	for _, bin := range []string{"/bin/bash", "/bin/sh", "/bin/cat"} {
		real, err := filepath.EvalSymlinks(bin)
		if err != nil {
			t.Skipf("host lacks %s", bin)
		}
		files = append(files, real)
		copies = append(copies, [2]string{real, bin})
		out, err := exec.Command("ldd", real).Output()
		if err != nil {
			t.Skipf("ldd %s: %v", real, err)
		}
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, "/") {
				files = append(files, f)
			}
		}
	}
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, dst := range []string{f, real} {
			target := filepath.Join(dir, dst)
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := hostfs.CopyFile(real, target, 0o755); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
	}
	for _, d := range []string{"bin", "lib", "lib64", "usr/bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, cp := range copies {
		if err := hostfs.CopyFile(cp[0], filepath.Join(dir, cp[1]), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "image-marker"), []byte("mini image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
