package envd

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

type fsEventJSON struct {
	Name  string         `json:"name"`
	Type  string         `json:"type"`
	Entry *EntryInfoJSON `json:"entry,omitempty"`
}

// fsEvent is the envd event for c, with the entry's info when asked for and
// the entry still exists.
func (sb *Machine) fsEvent(vroot, hroot string, c sandboxos.Change, withEntry bool) fsEventJSON {
	ev := fsEventJSON{Name: c.Name, Type: c.Op}
	if withEntry {
		if e, err := sb.entryInfo(path.Join(vroot, c.Name), filepath.Join(hroot, filepath.FromSlash(c.Name))); err == nil {
			ev.Entry = e
		}
	}
	return ev
}

type watchJSON struct {
	Path              string `json:"path"`
	Recursive         bool   `json:"recursive"`
	IncludeEntry      bool   `json:"includeEntry"`
	IncludeEntrySnake bool   `json:"include_entry"`
}

func (sb *Machine) watchRoot(p string) (string, string, error) {
	v, host := sb.resolvePath(p)
	st, err := os.Stat(host)
	if err != nil {
		return "", "", fsError(v, err)
	}
	if !st.IsDir() {
		return "", "", connectrpc.Errorf("invalid_argument", "path '%s' is not a directory", v)
	}
	return v, host, nil
}

// startWatch resolves p for user and starts watching it.
func (sb *Machine) startWatch(p, user string, recursive bool) (vroot, hroot string, dw sandboxos.DirWatch, err error) {
	v, host, err := sb.watchRoot(userPath(user, p))
	if err != nil {
		return "", "", nil, err
	}
	dw, err = sandboxos.WatchDirTree(host, recursive)
	if err != nil {
		return "", "", nil, connectrpc.Errorf("internal", "error adding path %s to watcher: %v", v, inSandbox(err))
	}
	return v, host, dw, nil
}

// watchDir serves the WatchDir stream.
func (sb *Machine) watchDir(w http.ResponseWriter, r *http.Request) {
	var req watchJSON
	if err := connectrpc.ReadStreamRequest(r, &req); err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	v, host, dw, err := sb.startWatch(req.Path, requestUser(r), req.Recursive)
	if err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	defer dw.Close()
	withEntry := req.IncludeEntry || req.IncludeEntrySnake
	deadline, keepalive := streamOptions(r)
	keepaliveMsg := map[string]any{"keepalive": struct{}{}}
	pumpStream(sb, w, r, map[string]any{"start": struct{}{}}, keepaliveMsg, deadline, keepalive, dw.Changes(), func(sw *connectrpc.StreamWriter, c sandboxos.Change, open bool) bool {
		if !open {
			sw.End(connectrpc.Errorf("internal", "watcher for %s ended", v))
			return true
		}
		return sw.Send(map[string]any{"filesystem": sb.fsEvent(v, host, c, withEntry)}) != nil
	})
}

// watcher collects the events of a CreateWatcher watch until they are
// fetched with GetWatcherEvents.
type watcher struct {
	dw     sandboxos.DirWatch
	mu     sync.Mutex
	events []fsEventJSON
}

func (sb *Machine) createWatcher(p, user string, recursive, withEntry bool) (any, error) {
	v, host, dw, err := sb.startWatch(p, user, recursive)
	if err != nil {
		return nil, err
	}
	wt := &watcher{dw: dw}
	go func() {
		for c := range dw.Changes() {
			ev := sb.fsEvent(v, host, c, withEntry)
			wt.mu.Lock()
			wt.events = append(wt.events, ev)
			wt.mu.Unlock()
		}
	}()
	id := ids.New("", 16)
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.killed {
		dw.Close()
		return nil, connectrpc.Errorf("unavailable", "sandbox is shutting down")
	}
	sb.watchers[id] = wt
	return map[string]string{"watcherId": id}, nil
}

func (sb *Machine) watcherEvents(id string) (any, error) {
	sb.mu.Lock()
	wt := sb.watchers[id]
	sb.mu.Unlock()
	if wt == nil {
		return nil, connectrpc.Errorf("not_found", "watcher with id %s not found", id)
	}
	wt.mu.Lock()
	evs := wt.events
	wt.events = nil
	wt.mu.Unlock()
	if evs == nil {
		evs = []fsEventJSON{}
	}
	return map[string]any{"events": evs}, nil
}

func (sb *Machine) removeWatcher(id string) (any, error) {
	sb.mu.Lock()
	wt := sb.watchers[id]
	delete(sb.watchers, id)
	sb.mu.Unlock()
	if wt == nil {
		return nil, connectrpc.Errorf("not_found", "watcher with id %s not found", id)
	}
	wt.dw.Close()
	return struct{}{}, nil
}

// closeWatchers ends every CreateWatcher watch (the sandbox stops or reboots).
func (sb *Machine) closeWatchers() {
	sb.mu.Lock()
	watchers := sb.watchers
	sb.watchers = map[string]*watcher{}
	sb.mu.Unlock()
	for _, wt := range watchers {
		wt.dw.Close()
	}
}
