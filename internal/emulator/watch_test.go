package emulator

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// watchEvents reads filesystem events from a WatchDir stream in the
// background; wait returns once an event with that name and type arrived.
type watchEvents struct {
	t      *testing.T
	events chan [2]string
	seen   []string
}

func (c *testClient) watch(sb createdSandbox, path string, recursive bool) *watchEvents {
	c.t.Helper()
	ws := c.openStream(sb, "filesystem.Filesystem/WatchDir", map[string]any{"path": path, "recursive": recursive}, nil)
	if f, err := ws.next(); err != nil || f.msg["start"] == nil {
		c.t.Fatalf("first watch message %v %v", f.msg, err)
	}
	we := &watchEvents{t: c.t, events: make(chan [2]string, 100)}
	go func() {
		defer close(we.events)
		for {
			f, err := ws.next()
			if err != nil || f.flags&connectrpc.FlagEndStream != 0 {
				return
			}
			if ev, ok := f.msg["filesystem"].(map[string]any); ok {
				we.events <- [2]string{fmt.Sprint(ev["name"]), fmt.Sprint(ev["type"])}
			}
		}
	}()
	return we
}

func (we *watchEvents) wait(name, typ string) {
	we.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-we.events:
			if !ok {
				we.t.Fatalf("watch ended before %s %s; saw %v", typ, name, we.seen)
			}
			we.seen = append(we.seen, ev[1]+" "+ev[0])
			if ev == [2]string{name, typ} {
				return
			}
		case <-timeout:
			we.t.Fatalf("no %s %s within 10 s; saw %v", typ, name, we.seen)
		}
	}
}

// none fails if an event for name arrives within d.
func (we *watchEvents) none(name string, d time.Duration) {
	we.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-we.events:
			if !ok {
				return
			}
			if ev[0] == name || strings.HasPrefix(ev[0], name+"/") {
				we.t.Fatalf("unexpected event %v", ev)
			}
		case <-timeout:
			return
		}
	}
}

func TestRecursiveWatchSeesFoldersCreatedLater(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	c.upload(sb, "w/existing.txt", strings.NewReader("first"), nil)
	rec := c.watch(sb, "w", true)
	flat := c.watch(sb, "w", false)

	// Overwriting a file is a write, as inotify reports it.
	c.upload(sb, "w/existing.txt", strings.NewReader("second"), nil)
	rec.wait("existing.txt", sandboxos.EventWrite)
	flat.wait("existing.txt", sandboxos.EventWrite)

	// A folder made after the watch started is watched too: the SDK waits for
	// the folder's event, then writes into it.
	st, data := c.rpc(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "w/nested"})
	wantStatus(t, "makedir", st, data, http.StatusOK)
	rec.wait("nested", sandboxos.EventCreate)
	flat.wait("nested", sandboxos.EventCreate)
	c.upload(sb, "w/nested/new.txt", strings.NewReader("content"), nil)
	rec.wait("nested/new.txt", sandboxos.EventCreate)
	rec.wait("nested/new.txt", sandboxos.EventWrite)
	flat.none("nested", 500*time.Millisecond)

	// A tree made in one go by a command: what existed before its folders
	// were watched is reported as created, what follows as it happens.
	c.mustRun(sb, "mkdir -p ~/w/a/b/c && echo x > ~/w/a/b/c/deep.txt")
	rec.wait("a/b/c/deep.txt", sandboxos.EventCreate)
	c.mustRun(sb, "echo more >> ~/w/a/b/c/deep.txt")
	rec.wait("a/b/c/deep.txt", sandboxos.EventWrite)
	c.mustRun(sb, "rm ~/w/a/b/c/deep.txt")
	rec.wait("a/b/c/deep.txt", sandboxos.EventRemove)

	// The polling RPCs watch new folders the same way.
	st, data = c.rpc(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "w", "recursive": true})
	wantStatus(t, "create watcher", st, data, http.StatusOK)
	id := decode[map[string]string](t, data)["watcherId"]
	c.rpc(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "w/later"})
	// As with the stream, the folder is watched once its event is out.
	eventually(t, "watcher event for w/later", func() bool {
		st, data := c.rpc(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		return st == 200 && strings.Contains(string(data), `"name":"later","type":"EVENT_TYPE_CREATE"`)
	})
	c.upload(sb, "w/later/f.txt", strings.NewReader("f"), nil)
	eventually(t, "watcher events for w/later/f.txt", func() bool {
		st, data := c.rpc(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		return st == 200 && strings.Contains(string(data), `"name":"later/f.txt","type":"EVENT_TYPE_WRITE"`)
	})
	st, data = c.rpc(sb, "filesystem.Filesystem/RemoveWatcher", map[string]any{"watcherId": id})
	wantStatus(t, "remove watcher", st, data, http.StatusOK)
	st, _ = c.rpc(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
	if st != http.StatusNotFound {
		t.Fatalf("events of a removed watcher: %d", st)
	}
}
