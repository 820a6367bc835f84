package emulator

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bootID is the boot ID the sandbox's commands see (with mount namespaces)
// or, without them, the one the emulator keeps for the sandbox.
func (c *testClient) bootID(sb createdSandbox) string {
	c.t.Helper()
	if c.srv.isolate {
		return strings.TrimSpace(c.mustRun(sb, "cat /proc/sys/kernel/random/boot_id"))
	}
	s := c.machine(sb.SandboxID)
	data, err := os.ReadFile(filepath.Join(s.Dir(), "boot_id"))
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

func (c *testClient) pauseAndResume(sb createdSandbox, body map[string]any) {
	c.t.Helper()
	st, data, _ := c.api("POST", "/sandboxes/"+sb.SandboxID+"/pause", body)
	wantStatus(c.t, "pause", st, data, http.StatusNoContent)
	st, data, _ = c.api("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
	wantStatus(c.t, "connect", st, data, http.StatusCreated)
}

func TestFilesystemOnlyPauseRebootsOnResume(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	c.upload(sb, "/home/user/kept.txt", strings.NewReader("on disk"), nil)
	first := c.bootID(sb)
	if host, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); c.srv.isolate && err == nil && strings.TrimSpace(string(host)) == first {
		t.Fatalf("commands see the host's boot ID %s", first)
	}
	other := c.create(map[string]any{})
	if c.bootID(other) == first {
		t.Fatal("two sandboxes share a boot ID")
	}

	// A memory pause restores the same boot.
	c.pauseAndResume(sb, nil)
	if got := c.bootID(sb); got != first {
		t.Fatalf("boot ID %s after a memory pause, want %s", got, first)
	}

	// A filesystem-only pause: a new boot with the same files and nothing of
	// the old envd, neither running nor ended processes nor watchers.
	running := c.startProcess(sb, "sleep 300", nil, nil)
	ended := c.startProcess(sb, "true", nil, nil)
	ended.collect()
	st, data := c.rpc(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "/home/user"})
	wantStatus(t, "create watcher", st, data, http.StatusOK)
	watcher := decode[map[string]string](t, data)["watcherId"]

	c.pauseAndResume(sb, map[string]any{"memory": false})
	if got := c.bootID(sb); got == first {
		t.Fatalf("boot ID %s unchanged by a filesystem-only pause", got)
	}
	if st, data := c.download(sb, "kept.txt"); st != 200 || string(data) != "on disk" {
		t.Fatalf("file after reboot: %d %q", st, data)
	}
	st, data = c.rpc(sb, "process.Process/List", map[string]any{})
	if st != 200 || strings.Contains(string(data), "sleep 300") {
		t.Fatalf("processes after reboot: %d %s", st, data)
	}
	for _, pid := range []uint32{running.pid, ended.pid} {
		ps := c.openStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": pid}}, nil)
		f, err := ps.next()
		if e, _ := f.msg["error"].(map[string]any); err != nil || e["code"] != "not_found" {
			t.Fatalf("connect to pid %d of the previous boot: %v %v", pid, f.msg, err)
		}
	}
	st, _ = c.rpc(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": watcher})
	if st != http.StatusNotFound {
		t.Fatalf("watcher of the previous boot: %d", st)
	}
	if c.srv.isolate {
		if out := c.mustRun(sb, "cat /home/user/kept.txt"); out != "on disk" {
			t.Fatalf("commands after reboot read %q", out)
		}
	}
}

func TestMemoryPauseReportsAFinishedProcessAsFinished(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})

	// Ended before the pause: still ended after it, with its exit status.
	done := c.startProcess(sb, "sleep 0.2; echo finished > ~/first.txt; exit 3", nil, nil)
	if res := done.collect(); res.end == nil || res.end["exitCode"] != float64(3) {
		t.Fatalf("first command end %v", res.end)
	}
	// Running at the pause: frozen with the sandbox, finishes after it. The
	// start event comes once the command itself runs (no setup of the
	// emulator's left), so the pause finds it where it would on E2B.
	late := c.startProcess(sb, "sleep 1 && echo finished > ~/second.txt", nil, nil)
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", late.pid)); err == nil {
		if got := strings.ReplaceAll(string(cmdline), "\x00", " "); !strings.HasPrefix(got, "/bin/bash -l -c sleep 1") {
			t.Fatalf("at the start event pid %d runs %q, not the command", late.pid, got)
		}
	}
	_ = late.resp.Body.Close() // the SDK's background command, disconnected by the pause
	c.pauseAndResume(sb, nil)

	eventually(t, "the second command finishes after the resume", func() bool {
		st, data := c.download(sb, "second.txt")
		return st == 200 && string(data) == "finished\n"
	})
	// The file is written just before the shell exits.
	eventually(t, "no finished command listed as running", func() bool {
		st, data := c.rpc(sb, "process.Process/List", map[string]any{})
		return st == 200 && !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, done.pid)) &&
			!strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, late.pid))
	})
	for pid, want := range map[uint32]any{done.pid: float64(3), late.pid: nil} {
		ps := c.openStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": pid}}, nil)
		ps.expectStart()
		if res := ps.collect(); res.end == nil || res.end["exitCode"] != want || res.end["exited"] != true {
			t.Fatalf("connect to finished pid %d: end %v, want exit code %v", pid, res.end, want)
		}
	}
}
