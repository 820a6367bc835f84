package emulator

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

const watchPollInterval = 200 * time.Millisecond

// fileStamp is what a poll compares to detect changes.
type fileStamp struct {
	mod  time.Time
	size int64
	mode os.FileMode
}

type fsEventJSON struct {
	Name  string         `json:"name"`
	Type  string         `json:"type"`
	Entry *entryInfoJSON `json:"entry,omitempty"`
}

// scanTree maps paths relative to root to their stamps.
func scanTree(root string, recursive bool) map[string]fileStamp {
	out := map[string]fileStamp{}
	if recursive {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || p == root {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = fileStamp{mod: info.ModTime(), size: info.Size(), mode: info.Mode()}
			return nil
		})
		return out
	}
	items, _ := os.ReadDir(root)
	for _, it := range items {
		if info, err := it.Info(); err == nil {
			out[it.Name()] = fileStamp{mod: info.ModTime(), size: info.Size(), mode: info.Mode()}
		}
	}
	return out
}

// diffTrees turns two scans into envd filesystem events, sorted by name.
func (sb *sandbox) diffTrees(vroot, hroot string, old, cur map[string]fileStamp, withEntry bool) []fsEventJSON {
	var evs []fsEventJSON
	entry := func(name string) *entryInfoJSON {
		if !withEntry {
			return nil
		}
		e, err := sb.entryInfo(path.Join(vroot, name), filepath.Join(hroot, filepath.FromSlash(name)))
		if err != nil {
			return nil
		}
		return e
	}
	for name, st := range cur {
		prev, ok := old[name]
		switch {
		case !ok:
			evs = append(evs, fsEventJSON{Name: name, Type: "EVENT_TYPE_CREATE", Entry: entry(name)})
		case !prev.mod.Equal(st.mod) || prev.size != st.size:
			evs = append(evs, fsEventJSON{Name: name, Type: "EVENT_TYPE_WRITE", Entry: entry(name)})
		case prev.mode != st.mode:
			evs = append(evs, fsEventJSON{Name: name, Type: "EVENT_TYPE_CHMOD", Entry: entry(name)})
		}
	}
	for name := range old {
		if _, ok := cur[name]; !ok {
			evs = append(evs, fsEventJSON{Name: name, Type: "EVENT_TYPE_REMOVE"})
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Name < evs[j].Name })
	return evs
}

type watchRequest struct {
	Path              string `json:"path"`
	Recursive         bool   `json:"recursive"`
	IncludeEntry      bool   `json:"includeEntry"`
	IncludeEntrySnake bool   `json:"include_entry"`
}

func (sb *sandbox) watchRoot(p string) (string, string, error) {
	v, host := sb.resolvePath(p)
	st, err := os.Stat(host)
	if err != nil {
		return "", "", fsError(v, err)
	}
	if !st.IsDir() {
		return "", "", newRPCError("invalid_argument", "path '%s' is not a directory", v)
	}
	return v, host, nil
}

// watchDir serves the WatchDir stream by polling the directory.
func (s *Server) watchDir(w http.ResponseWriter, r *http.Request, sb *sandbox) {
	var req watchRequest
	if err := readStreamRequest(r, &req); err != nil {
		newStreamWriter(w).end(err)
		return
	}
	v, host, err := sb.watchRoot(req.Path)
	if err != nil {
		newStreamWriter(w).end(err)
		return
	}
	withEntry := req.IncludeEntry || req.IncludeEntrySnake
	drop, unregister := sb.addStream()
	defer unregister()
	prev := scanTree(host, req.Recursive) // before "start": later changes are reported
	sw := newStreamWriter(w)
	if err := sw.send(map[string]any{"start": struct{}{}}); err != nil {
		return
	}
	deadline, keepalive := streamOptions(r)
	var deadlineC <-chan time.Time
	if deadline > 0 {
		t := time.NewTimer(deadline)
		defer t.Stop()
		deadlineC = t.C
	}
	poll := time.NewTicker(watchPollInterval)
	defer poll.Stop()
	lastSent := time.Now()
	for {
		select {
		case <-poll.C:
			cur := scanTree(host, req.Recursive)
			for _, ev := range sb.diffTrees(v, host, prev, cur, withEntry) {
				if err := sw.send(map[string]any{"filesystem": ev}); err != nil {
					return
				}
				lastSent = time.Now()
			}
			prev = cur
			if time.Since(lastSent) >= keepalive {
				if err := sw.send(map[string]any{"keepalive": struct{}{}}); err != nil {
					return
				}
				lastSent = time.Now()
			}
		case <-deadlineC:
			sw.end(newRPCError("deadline_exceeded", "context deadline exceeded"))
			return
		case <-drop:
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		}
	}
}

// watcher is a polling watcher for the CreateWatcher/GetWatcherEvents RPCs.
type watcher struct {
	vroot, hroot string
	recursive    bool

	mu   sync.Mutex // serialises polls of the same watcher
	last map[string]fileStamp
}

func (sb *sandbox) createWatcher(p string, recursive bool) (any, error) {
	v, host, err := sb.watchRoot(p)
	if err != nil {
		return nil, err
	}
	id := newID("", 16)
	sb.mu.Lock()
	sb.watchers[id] = &watcher{vroot: v, hroot: host, recursive: recursive, last: scanTree(host, recursive)}
	sb.mu.Unlock()
	return map[string]string{"watcherId": id}, nil
}

func (sb *sandbox) watcherEvents(id string) (any, error) {
	sb.mu.Lock()
	wt := sb.watchers[id]
	sb.mu.Unlock()
	if wt == nil {
		return nil, newRPCError("not_found", "watcher with id %s not found", id)
	}
	wt.mu.Lock()
	cur := scanTree(wt.hroot, wt.recursive)
	evs := sb.diffTrees(wt.vroot, wt.hroot, wt.last, cur, false)
	wt.last = cur
	wt.mu.Unlock()
	if evs == nil {
		evs = []fsEventJSON{}
	}
	return map[string]any{"events": evs}, nil
}

func (sb *sandbox) removeWatcher(id string) (any, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.watchers[id] == nil {
		return nil, newRPCError("not_found", "watcher with id %s not found", id)
	}
	delete(sb.watchers, id)
	return struct{}{}, nil
}
