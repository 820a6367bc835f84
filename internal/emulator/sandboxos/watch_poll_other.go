//go:build !linux

package sandboxos

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Without inotify the watch polls: it sees the state every interval, so a
// file created and written within one interval is reported as created only.
const watchPollInterval = 200 * time.Millisecond

type pollWatch struct {
	out       chan Change
	done      chan struct{}
	closeOnce sync.Once
}

func WatchDirTree(root string, recursive bool) (DirWatch, error) {
	w := &pollWatch{out: make(chan Change, 256), done: make(chan struct{})}
	prev := scanTree(root, recursive)
	go func() {
		defer close(w.out)
		tick := time.NewTicker(watchPollInterval)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			cur := scanTree(root, recursive)
			for _, c := range diffTrees(prev, cur) {
				select {
				case w.out <- c:
				case <-w.done:
					return
				}
			}
			prev = cur
		}
	}()
	return w, nil
}

func (w *pollWatch) Changes() <-chan Change { return w.out }

func (w *pollWatch) Close() { w.closeOnce.Do(func() { close(w.done) }) }

// fileStamp is what a poll compares to detect changes.
type fileStamp struct {
	mod  time.Time
	size int64
	mode os.FileMode
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

// diffTrees turns two scans into changes, sorted by name.
func diffTrees(old, cur map[string]fileStamp) []Change {
	var out []Change
	for name, st := range cur {
		prev, ok := old[name]
		switch {
		case !ok:
			out = append(out, Change{Name: name, Op: EventCreate})
		case !prev.mod.Equal(st.mod) || prev.size != st.size:
			out = append(out, Change{Name: name, Op: EventWrite})
		case prev.mode != st.mode:
			out = append(out, Change{Name: name, Op: EventChmod})
		}
	}
	for name := range old {
		if _, ok := cur[name]; !ok {
			out = append(out, Change{Name: name, Op: EventRemove})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
