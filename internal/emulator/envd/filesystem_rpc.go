package envd

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
)

// EntryInfoJSON is filesystem.EntryInfo in proto-JSON (defaults omitted); emulatortest decodes
// the filesystem RPCs' answers with it.
type EntryInfoJSON struct {
	Name          string            `json:"name,omitempty"`
	Type          string            `json:"type,omitempty"`
	Path          string            `json:"path,omitempty"`
	Size          string            `json:"size,omitempty"`
	Mode          uint32            `json:"mode,omitempty"`
	Permissions   string            `json:"permissions,omitempty"`
	Owner         string            `json:"owner,omitempty"`
	Group         string            `json:"group,omitempty"`
	ModifiedTime  string            `json:"modifiedTime,omitempty"`
	SymlinkTarget *string           `json:"symlinkTarget,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "FILE_TYPE_DIRECTORY"
	case m.IsRegular():
		return "FILE_TYPE_FILE"
	}
	return "" // FILE_TYPE_UNSPECIFIED, the default that protojson leaves out
}

// entryInfo describes virtual (stored at host) like envd: a symlink reports
// its fully resolved absolute target, and the type, mode and metadata of
// that target; an unresolvable one reports itself as target and no type.
func (sb *Machine) entryInfo(virtual, host string) (*EntryInfoJSON, error) {
	lst, err := os.Lstat(host)
	if err != nil {
		return nil, err
	}
	e := &EntryInfoJSON{
		Name: path.Base(virtual), Type: fileType(lst.Mode()), Path: virtual,
		Mode: uint32(lst.Mode().Perm()), Permissions: lst.Mode().String(),
		ModifiedTime: lst.ModTime().UTC().Format(time.RFC3339Nano),
		Metadata:     hostfs.ReadMetadata(host),
	}
	e.Owner, e.Group = sb.ownerOf(host, lst)
	if lst.Mode()&os.ModeSymlink != 0 {
		sb.describeSymlinkTarget(e, virtual)
	}
	if lst.Size() != 0 {
		e.Size = itoa64(lst.Size())
	}
	return e, nil
}

// describeSymlinkTarget fills in what envd reports about a link's target.
func (sb *Machine) describeSymlinkTarget(e *EntryInfoJSON, virtual string) {
	e.Type, e.Mode, e.Metadata = "", 0, nil // unspecified until the target is found
	target, err := sb.evalSymlinks(virtual)
	if err != nil {
		e.SymlinkTarget = &virtual // envd falls back to the link's own path
		return
	}
	e.SymlinkTarget = &target
	host := sb.hostPath(target)
	if st, err := os.Stat(host); err == nil {
		e.Type, e.Mode = fileType(st.Mode()), uint32(st.Mode().Perm())
		e.Metadata = hostfs.ReadMetadata(host)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func (sb *Machine) serveFilesystemRPC(w http.ResponseWriter, r *http.Request, method string) {
	switch method {
	case "WatchDir":
		sb.watchDir(w, r)
		return
	case "Stat", "MakeDir", "Move", "ListDir", "Remove", "CreateWatcher", "GetWatcherEvents", "RemoveWatcher":
	default:
		connectrpc.WriteError(w, connectrpc.Errorf("unimplemented", "filesystem.Filesystem/%s is not implemented", method))
		return
	}
	var req struct {
		Path           string                `json:"path"`
		Source         string                `json:"source"`
		Destination    string                `json:"destination"`
		Depth          connectrpc.FlexUint32 `json:"depth"`
		Recursive      bool                  `json:"recursive"`
		IncludeEntry   bool                  `json:"includeEntry"`
		WatcherID      string                `json:"watcherId"`
		WatcherIDSnake string                `json:"watcher_id"`
	}
	if err := connectrpc.ReadUnary(r, &req); err != nil {
		connectrpc.WriteError(w, err)
		return
	}
	user := requestUser(r)
	req.Path, req.Source, req.Destination = userPath(user, req.Path), userPath(user, req.Source), userPath(user, req.Destination)
	var resp any
	var err error
	switch method {
	case "Stat":
		resp, err = sb.fsStat(req.Path)
	case "MakeDir":
		resp, err = sb.fsMakeDir(req.Path, user)
	case "Move":
		resp, err = sb.fsMove(req.Source, req.Destination, user)
	case "ListDir":
		resp, err = sb.fsListDir(req.Path, uint32(req.Depth))
	case "Remove":
		resp, err = sb.fsRemove(req.Path)
	case "CreateWatcher":
		resp, err = sb.createWatcher(req.Path, user, req.Recursive, req.IncludeEntry)
	case "GetWatcherEvents":
		id := req.WatcherID
		if id == "" {
			id = req.WatcherIDSnake
		}
		resp, err = sb.watcherEvents(id)
	case "RemoveWatcher":
		id := req.WatcherID
		if id == "" {
			id = req.WatcherIDSnake
		}
		resp, err = sb.removeWatcher(id)
	}
	if err != nil {
		connectrpc.WriteError(w, err)
		return
	}
	connectrpc.WriteUnary(w, resp)
}

type entryResponseJSON struct {
	Entry *EntryInfoJSON `json:"entry"`
}

func notFoundPath(virtual string) error {
	return connectrpc.Errorf("not_found", "path '%s' does not exist", virtual)
}

func fsError(virtual string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return notFoundPath(virtual)
	}
	return connectrpc.Errorf("internal", "error accessing '%s': %v", virtual, inSandbox(err))
}

// inSandbox drops the host path from a file system error: the sandbox's
// client sees only its own paths, as envd reports them.
func inSandbox(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func (sb *Machine) fsStat(p string) (any, error) {
	v, host := sb.resolvePath(p)
	e, err := sb.entryInfo(v, host)
	if err != nil {
		return nil, fsError(v, err)
	}
	return entryResponseJSON{Entry: e}, nil
}

func (sb *Machine) fsMakeDir(p, user string) (any, error) {
	v, host := sb.resolvePath(p)
	if st, err := os.Stat(host); err == nil {
		if st.IsDir() {
			return nil, connectrpc.Errorf("already_exists", "directory '%s' already exists", v)
		}
		return nil, connectrpc.Errorf("invalid_argument", "path '%s' already exists and is not a directory", v)
	}
	if err := sb.ensureDirs(host, user); err != nil {
		return nil, connectrpc.Errorf("internal", "error creating directory '%s': %v", v, inSandbox(err))
	}
	e, err := sb.entryInfo(v, host)
	if err != nil {
		return nil, fsError(v, err)
	}
	return entryResponseJSON{Entry: e}, nil
}

func (sb *Machine) fsMove(src, dst, user string) (any, error) {
	vs, hs := sb.resolvePath(src)
	vd, hd := sb.resolvePath(dst)
	if _, err := os.Lstat(hs); err != nil {
		return nil, fsError(vs, err)
	}
	if err := sb.ensureDirs(filepath.Dir(hd), user); err != nil {
		return nil, connectrpc.Errorf("internal", "error creating parent of '%s': %v", vd, inSandbox(err))
	}
	if err := os.Rename(hs, hd); err != nil {
		return nil, connectrpc.Errorf("internal", "error renaming '%s' to '%s': %v", vs, vd, inSandbox(err))
	}
	e, err := sb.entryInfo(vd, hd)
	if err != nil {
		return nil, fsError(vd, err)
	}
	return entryResponseJSON{Entry: e}, nil
}

func (sb *Machine) fsListDir(p string, depth uint32) (any, error) {
	if depth == 0 {
		depth = 1
	}
	v, host := sb.resolvePath(p)
	st, err := os.Stat(host) // a symlinked root is followed
	if err != nil {
		return nil, fsError(v, err)
	}
	if !st.IsDir() {
		return nil, connectrpc.Errorf("invalid_argument", "path '%s' is not a directory", v)
	}
	entries := []*EntryInfoJSON{}
	var walk func(vdir, hdir string, level uint32) error
	walk = func(vdir, hdir string, level uint32) error {
		items, err := os.ReadDir(hdir)
		if err != nil {
			return err
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Name() < items[j].Name() })
		for _, it := range items {
			cv, ch := path.Join(vdir, it.Name()), filepath.Join(hdir, it.Name())
			e, err := sb.entryInfo(cv, ch)
			if err != nil {
				continue // vanished meanwhile
			}
			entries = append(entries, e)
			if it.IsDir() && level < depth { // DirEntry.IsDir does not follow symlinks
				if err := walk(cv, ch, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v, host, 1); err != nil {
		return nil, fsError(v, err)
	}
	return map[string]any{"entries": entries}, nil
}

func (sb *Machine) fsRemove(p string) (any, error) {
	v, host := sb.resolvePath(p)
	if host == sb.homeDir() || host == sb.tmpDir() || host == sb.rootDir() {
		// Keep the mount points; empty them instead.
		items, err := os.ReadDir(host)
		if err != nil {
			return nil, fsError(v, err)
		}
		for _, it := range items {
			if err := os.RemoveAll(filepath.Join(host, it.Name())); err != nil {
				return nil, connectrpc.Errorf("internal", "error removing '%s': %v", v, inSandbox(err))
			}
		}
		return struct{}{}, nil
	}
	if err := os.RemoveAll(host); err != nil {
		return nil, connectrpc.Errorf("internal", "error removing '%s': %v", v, inSandbox(err))
	}
	return struct{}{}, nil
}
