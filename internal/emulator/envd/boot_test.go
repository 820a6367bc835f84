package envd_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestFilesystemOnlyPauseRebootsOnResume(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.Upload(sb, "/home/user/kept.txt", strings.NewReader("on disk"), nil)
	first := c.BootID(sb)
	if host, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); c.Srv.Isolated() && err == nil && strings.TrimSpace(string(host)) == first {
		t.Fatalf("commands see the host's boot ID %s", first)
	}
	other := c.Create(map[string]any{})
	if c.BootID(other) == first {
		t.Fatal("two sandboxes share a boot ID")
	}

	// A memory pause restores the same boot.
	c.PauseAndResume(sb, nil)
	if got := c.BootID(sb); got != first {
		t.Fatalf("boot ID %s after a memory pause, want %s", got, first)
	}

	// A filesystem-only pause: a new boot with the same files and nothing of
	// the old envd, neither running nor ended processes nor watchers.
	running := c.StartProcess(sb, "sleep 300", nil, nil)
	ended := c.StartProcess(sb, "true", nil, nil)
	ended.Collect()
	st, data := c.RPC(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "/home/user"})
	emulatortest.WantStatus(t, "create watcher", st, data, http.StatusOK)
	watcher := emulatortest.Decode[map[string]string](t, data)["watcherId"]

	c.PauseAndResume(sb, map[string]any{"memory": false})
	if got := c.BootID(sb); got == first {
		t.Fatalf("boot ID %s unchanged by a filesystem-only pause", got)
	}
	if st, data := c.Download(sb, "kept.txt"); st != 200 || string(data) != "on disk" {
		t.Fatalf("file after reboot: %d %q", st, data)
	}
	st, data = c.RPC(sb, "process.Process/List", map[string]any{})
	if st != 200 || strings.Contains(string(data), "sleep 300") {
		t.Fatalf("processes after reboot: %d %s", st, data)
	}
	for _, pid := range []uint32{running.PID, ended.PID} {
		ps := c.OpenStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": pid}}, nil)
		f, err := ps.Next()
		if e, _ := f.Msg["error"].(map[string]any); err != nil || e["code"] != "not_found" {
			t.Fatalf("connect to pid %d of the previous boot: %v %v", pid, f.Msg, err)
		}
	}
	st, _ = c.RPC(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": watcher})
	if st != http.StatusNotFound {
		t.Fatalf("watcher of the previous boot: %d", st)
	}
	if c.Srv.Isolated() {
		if out := c.MustRun(sb, "cat /home/user/kept.txt"); out != "on disk" {
			t.Fatalf("commands after reboot read %q", out)
		}
	}
}

func TestMemoryPauseReportsAFinishedProcessAsFinished(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})

	// Ended before the pause: still ended after it, with its exit status.
	done := c.StartProcess(sb, "sleep 0.2; echo finished > ~/first.txt; exit 3", nil, nil)
	if res := done.Collect(); res.End == nil || res.End["exitCode"] != float64(3) {
		t.Fatalf("first command end %v", res.End)
	}
	// Running at the pause: frozen with the sandbox, finishes after it. The
	// start event comes once the command itself runs (no setup of the
	// emulator's left), so the pause finds it where it would on E2B.
	late := c.StartProcess(sb, "sleep 1 && echo finished > ~/second.txt", nil, nil)
	// The pid is the one the sandbox sees: its /proc says what runs there.
	if got := c.MustRun(sb, fmt.Sprintf(`tr '\0' ' ' </proc/%d/cmdline`, late.PID)); !strings.HasPrefix(got, "/bin/bash -l -c sleep 1") {
		t.Fatalf("at the start event pid %d runs %q, not the command", late.PID, got)
	}
	_ = late.Resp.Body.Close() // the SDK's background command, disconnected by the pause
	c.PauseAndResume(sb, nil)

	emulatortest.Eventually(t, "the second command finishes after the resume", func() bool {
		st, data := c.Download(sb, "second.txt")
		return st == 200 && string(data) == "finished\n"
	})
	// The file is written just before the shell exits.
	emulatortest.Eventually(t, "no finished command listed as running", func() bool {
		st, data := c.RPC(sb, "process.Process/List", map[string]any{})
		return st == 200 && !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, done.PID)) &&
			!strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, late.PID))
	})
	for pid, want := range map[uint32]any{done.PID: float64(3), late.PID: nil} {
		ps := c.OpenStream(sb, "process.Process/Connect", map[string]any{"process": map[string]any{"pid": pid}}, nil)
		ps.ExpectStart()
		if res := ps.Collect(); res.End == nil || res.End["exitCode"] != want || res.End["exited"] != true {
			t.Fatalf("connect to finished pid %d: end %v, want exit code %v", pid, res.End, want)
		}
	}
}
