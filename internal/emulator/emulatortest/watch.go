package emulatortest

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
)

// Streams: directory watches and terminals.

// Watcher reads filesystem events from a WatchDir stream in the
// background; wait returns once an event with that name and type arrived.
type Watcher struct {
	t      *testing.T
	events chan [2]string
	seen   []string
}

// Watch starts a WatchDir stream and collects its events.
func (c *Client) Watch(sb Sandbox, path string, recursive bool) *Watcher {
	c.T.Helper()
	ws := c.OpenStream(sb, "filesystem.Filesystem/WatchDir", map[string]any{"path": path, "recursive": recursive}, nil)
	if f, err := ws.Next(); err != nil || f.Msg["start"] == nil {
		c.T.Fatalf("first watch message %v %v", f.Msg, err)
	}
	we := &Watcher{t: c.T, events: make(chan [2]string, 100)}
	go func() {
		defer close(we.events)
		for {
			f, err := ws.Next()
			if err != nil || f.Flags&connectrpc.FlagEndStream != 0 {
				return
			}
			if ev, ok := f.Msg["filesystem"].(map[string]any); ok {
				we.events <- [2]string{fmt.Sprint(ev["name"]), fmt.Sprint(ev["type"])}
			}
		}
	}()
	return we
}

// Wait waits (10 s at most) for an event of typ on name.
func (we *Watcher) Wait(name, typ string) {
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

// None fails if an event for name arrives within d.
func (we *Watcher) None(name string, d time.Duration) {
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

// PTYUntil reads a pty process's output until want appears.
func (ps *Stream) PTYUntil(out *strings.Builder, want string) {
	ps.T.Helper()
	timer := time.AfterFunc(10*time.Second, func() { _ = ps.Resp.Body.Close() }) // ends a blocked read
	defer timer.Stop()
	for !strings.Contains(out.String(), want) {
		f, err := ps.Next()
		if err != nil || f.Flags&connectrpc.FlagEndStream != 0 {
			ps.T.Fatalf("no %q in the terminal output (within 10 s): %q (%v %v)", want, out.String(), f.Msg, err)
		}
		ev, _ := f.Msg["event"].(map[string]any)
		if d, ok := ev["data"].(map[string]any); ok {
			b, _ := base64.StdEncoding.DecodeString(d["pty"].(string))
			out.Write(b)
		}
	}
}
