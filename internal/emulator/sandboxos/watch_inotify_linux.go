//go:build linux

package sandboxos

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// inotifyMask is fsnotify's: what envd's watcher subscribes to.
const inotifyMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// inotifyWatch is a DirWatch on inotify, as envd's: one kernel watch per
// directory, and in recursive mode one more for every directory that
// appears later.
type inotifyWatch struct {
	f         *os.File
	fd        int
	root      string
	recursive bool
	out       chan Change
	done      chan struct{}
	closeOnce sync.Once

	mu   sync.Mutex
	dirs map[int]string // watch descriptor -> directory relative to root ("" for root)
}

func WatchDirTree(root string, recursive bool) (DirWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	w := &inotifyWatch{
		f: os.NewFile(uintptr(fd), "inotify"), fd: fd, root: root, recursive: recursive,
		out: make(chan Change, 256), done: make(chan struct{}), dirs: map[int]string{},
	}
	if err := w.add(""); err != nil {
		_ = w.f.Close()
		return nil, err
	}
	if recursive {
		w.addTree("", nil)
	}
	go w.read()
	return w, nil
}

func (w *inotifyWatch) Changes() <-chan Change { return w.out }

func (w *inotifyWatch) Close() {
	w.closeOnce.Do(func() {
		close(w.done)
		_ = w.f.Close() // ends the pending read
	})
}

func (w *inotifyWatch) add(rel string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.done:
		return os.ErrClosed
	default:
	}
	wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), inotifyMask)
	if err != nil {
		return err
	}
	w.dirs[wd] = rel
	return nil
}

// addTree watches every directory below rel. With announce set it reports
// each entry it finds as created: they appeared before their directory's
// watch existed, so the kernel reported none of them.
func (w *inotifyWatch) addTree(rel string, announce func(Change) bool) {
	base := filepath.Join(w.root, filepath.FromSlash(rel))
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == base {
			return nil
		}
		sub, _ := filepath.Rel(w.root, p)
		sub = filepath.ToSlash(sub)
		if d.IsDir() {
			_ = w.add(sub)
		}
		if announce != nil && !announce(Change{Name: sub, Op: EventCreate}) {
			return filepath.SkipAll
		}
		return nil
	})
}

// forgetTree drops the watches of rel and everything below it (moved away).
func (w *inotifyWatch) forgetTree(rel string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for wd, dir := range w.dirs {
		if dir == rel || strings.HasPrefix(dir, rel+"/") {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, wd)
		}
	}
}

func (w *inotifyWatch) send(c Change) bool {
	select {
	case w.out <- c:
		return true
	case <-w.done:
		return false
	}
}

func (w *inotifyWatch) read() {
	defer close(w.out)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int(int32(binary.NativeEndian.Uint32(buf[off:])))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+nameLen]), "\x00")
			off += unix.SizeofInotifyEvent + nameLen
			if !w.handle(wd, mask, name) {
				return
			}
		}
	}
}

// handle turns one inotify event into envd events; false once closed.
func (w *inotifyWatch) handle(wd int, mask uint32, name string) bool {
	w.mu.Lock()
	dir, known := w.dirs[wd]
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd)
	}
	w.mu.Unlock()
	if !known || mask&unix.IN_Q_OVERFLOW != 0 {
		return true
	}
	rel := path.Join(dir, name)
	if name == "" { // an event of the watched directory itself
		if dir != "" {
			return true // its parent's watch reports it
		}
		rel = "."
	}
	isDir := mask&unix.IN_ISDIR != 0
	if w.recursive && isDir && mask&unix.IN_MOVED_FROM != 0 {
		w.forgetTree(rel)
	}
	newDir := w.recursive && isDir && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0
	if newDir {
		if err := w.add(rel); err != nil && errors.Is(err, os.ErrClosed) {
			return false
		}
	}
	for _, op := range inotifyOps(mask) {
		if !w.send(Change{Name: rel, Op: op}) {
			return false
		}
	}
	if newDir {
		var announce func(Change) bool
		if mask&unix.IN_CREATE != 0 {
			announce = w.send
		}
		w.addTree(rel, announce)
	}
	return true
}

// inotifyOps maps an inotify mask to envd's event types, in envd's order.
func inotifyOps(mask uint32) []string {
	var ops []string
	if mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		ops = append(ops, EventCreate)
	}
	if mask&(unix.IN_MOVED_FROM|unix.IN_MOVE_SELF) != 0 {
		ops = append(ops, EventRename)
	}
	if mask&unix.IN_ATTRIB != 0 {
		ops = append(ops, EventChmod)
	}
	if mask&unix.IN_MODIFY != 0 {
		ops = append(ops, EventWrite)
	}
	if mask&(unix.IN_DELETE|unix.IN_DELETE_SELF) != 0 {
		ops = append(ops, EventRemove)
	}
	return ops
}
