package envd_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

func TestRecursiveWatchSeesFoldersCreatedLater(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.Upload(sb, "w/existing.txt", strings.NewReader("first"), nil)
	rec := c.Watch(sb, "w", true)
	flat := c.Watch(sb, "w", false)

	// Overwriting a file is a write, as inotify reports it.
	c.Upload(sb, "w/existing.txt", strings.NewReader("second"), nil)
	rec.Wait("existing.txt", sandboxos.EventWrite)
	flat.Wait("existing.txt", sandboxos.EventWrite)

	// A folder made after the watch started is watched too: the SDK waits for
	// the folder's event, then writes into it.
	st, data := c.RPC(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "w/nested"})
	emulatortest.WantStatus(t, "makedir", st, data, http.StatusOK)
	rec.Wait("nested", sandboxos.EventCreate)
	flat.Wait("nested", sandboxos.EventCreate)
	if os.Geteuid() == 0 {
		// envd makes the folder, then gives it to the user (chown): an attribute change.
		flat.Wait("nested", sandboxos.EventChmod)
	}
	c.Upload(sb, "w/nested/new.txt", strings.NewReader("content"), nil)
	rec.Wait("nested/new.txt", sandboxos.EventCreate)
	rec.Wait("nested/new.txt", sandboxos.EventWrite)
	flat.None("nested", 500*time.Millisecond)

	// A tree made in one go by a command: what existed before its folders
	// were watched is reported as created, what follows as it happens.
	c.MustRun(sb, "mkdir -p ~/w/a/b/c && echo x > ~/w/a/b/c/deep.txt")
	rec.Wait("a/b/c/deep.txt", sandboxos.EventCreate)
	c.MustRun(sb, "echo more >> ~/w/a/b/c/deep.txt")
	rec.Wait("a/b/c/deep.txt", sandboxos.EventWrite)
	c.MustRun(sb, "rm ~/w/a/b/c/deep.txt")
	rec.Wait("a/b/c/deep.txt", sandboxos.EventRemove)

	// The polling RPCs watch new folders the same way.
	st, data = c.RPC(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "w", "recursive": true})
	emulatortest.WantStatus(t, "create watcher", st, data, http.StatusOK)
	id := emulatortest.Decode[map[string]string](t, data)["watcherId"]
	c.RPC(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "w/later"})
	// As with the stream, the folder is watched once its event is out.
	emulatortest.Eventually(t, "watcher event for w/later", func() bool {
		st, data := c.RPC(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		return st == 200 && strings.Contains(string(data), `"name":"later","type":"EVENT_TYPE_CREATE"`)
	})
	c.Upload(sb, "w/later/f.txt", strings.NewReader("f"), nil)
	emulatortest.Eventually(t, "watcher events for w/later/f.txt", func() bool {
		st, data := c.RPC(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		return st == 200 && strings.Contains(string(data), `"name":"later/f.txt","type":"EVENT_TYPE_WRITE"`)
	})
	st, data = c.RPC(sb, "filesystem.Filesystem/RemoveWatcher", map[string]any{"watcherId": id})
	emulatortest.WantStatus(t, "remove watcher", st, data, http.StatusOK)
	st, _ = c.RPC(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
	if st != http.StatusNotFound {
		t.Fatalf("events of a removed watcher: %d", st)
	}
}
