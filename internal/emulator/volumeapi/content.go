package volumeapi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// api serves the routes over the volumes of a store.
type api struct {
	store *store.Store
}

// NewMux routes the volume-content API over the store's volumes; its
// patterns are the route keys the emulator counts and faults.
func NewMux(store *store.Store) *http.ServeMux {
	s := &api{store: store}
	m := http.NewServeMux()
	m.HandleFunc("GET /volumecontent/{id}/path", s.volumeHandler(s.handleVolumeStat))
	m.HandleFunc("PATCH /volumecontent/{id}/path", s.volumeHandler(s.handleVolumePatch))
	m.HandleFunc("DELETE /volumecontent/{id}/path", s.volumeHandler(s.handleVolumeRemove))
	m.HandleFunc("GET /volumecontent/{id}/dir", s.volumeHandler(s.handleVolumeList))
	m.HandleFunc("POST /volumecontent/{id}/dir", s.volumeHandler(s.handleVolumeMkdir))
	m.HandleFunc("GET /volumecontent/{id}/file", s.volumeHandler(s.handleVolumeDownload))
	m.HandleFunc("PUT /volumecontent/{id}/file", s.volumeHandler(s.handleVolumeUpload))
	return m
}

// Error writes the volume-content Error schema (code is a string).
func Error(w http.ResponseWriter, status int, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	httpjson.Write(w, status, map[string]string{"code": strconv.Itoa(status), "message": msg})
}

// volumeTarget is the authorised volume and ?path= in it. Every file operation goes through
// root, which resolves rel beneath the volume's content directory: a symlink (which a sandbox
// mounting the volume can plant) is followed only while it stays inside, never out of it.
type volumeTarget struct {
	vol     store.Volume
	root    *os.Root // the volume's content directory
	virtual string   // clean, absolute inside the volume
	rel     string   // virtual relative to root ("." for the root)
}

// volumeHandler checks the bearer token and resolves ?path= inside the volume.
func (s *api) volumeHandler(h func(http.ResponseWriter, *http.Request, volumeTarget)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" {
			Error(w, http.StatusUnauthorized, "authorization header is missing")
			return
		}
		v, ok := s.store.Volume(r.PathValue("id"))
		if !ok {
			Error(w, http.StatusNotFound, "volume '%s' not found", r.PathValue("id"))
			return
		}
		if !validToken(v, token) {
			Error(w, http.StatusUnauthorized, "invalid volume token")
			return
		}
		p := r.URL.Query().Get("path")
		if p == "" {
			Error(w, http.StatusBadRequest, "query parameter \"path\" is required")
			return
		}
		virtual := path.Clean("/" + p)
		root, err := os.OpenRoot(s.store.VolumeData(v.ID))
		if err != nil {
			Error(w, http.StatusInternalServerError, "volume '%s': %v", v.ID, err)
			return
		}
		defer root.Close()
		rel := strings.TrimPrefix(virtual, "/")
		if rel == "" {
			rel = "."
		}
		h(w, r, volumeTarget{vol: v, root: root, virtual: virtual, rel: rel})
	}
}

// VolumeEntryStatJSON is the volume-content API's VolumeEntryStat schema.
type VolumeEntryStatJSON struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"`
	Path   string    `json:"path"`
	Size   int64     `json:"size"`
	Mode   uint32    `json:"mode"`
	UID    uint32    `json:"uid"`
	GID    uint32    `json:"gid"`
	Atime  time.Time `json:"atime"`
	Mtime  time.Time `json:"mtime"`
	Ctime  time.Time `json:"ctime"`
	Target string    `json:"target,omitempty"`
}

func statVolumeEntry(root *os.Root, rel, virtual string) (VolumeEntryStatJSON, error) {
	fi, err := root.Lstat(rel)
	if err != nil {
		return VolumeEntryStatJSON{}, err
	}
	e := VolumeEntryStatJSON{Name: path.Base(virtual), Path: virtual, Size: fi.Size(), Mode: uint32(fi.Mode().Perm()), Mtime: fi.ModTime().UTC()}
	switch {
	case fi.IsDir():
		e.Type = "directory"
	case fi.Mode()&os.ModeSymlink != 0:
		e.Type = "symlink"
		e.Target, _ = root.Readlink(rel)
	case fi.Mode().IsRegular():
		e.Type = "file"
	default:
		e.Type = "unknown"
	}
	e.Atime, e.Ctime = e.Mtime, e.Mtime
	if o, ok := sandboxos.FileOwnerTimes(fi); ok {
		e.UID, e.GID, e.Atime, e.Ctime = o.UID, o.GID, o.Atime, o.Ctime
	}
	return e, nil
}

func (s *api) writeVolumeStat(w http.ResponseWriter, t volumeTarget, status int) {
	e, err := statVolumeEntry(t.root, t.rel, t.virtual)
	if err != nil {
		volumeFSError(w, t, err)
		return
	}
	httpjson.Write(w, status, e)
}

func volumeFSError(w http.ResponseWriter, t volumeTarget, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		Error(w, http.StatusNotFound, "path '%s' not found", t.virtual)
	case errors.Is(err, fs.ErrExist):
		Error(w, http.StatusConflict, "path '%s' already exists", t.virtual)
	case errors.Is(err, syscall.ENOTDIR):
		Error(w, http.StatusBadRequest, "path '%s' is not a directory", t.virtual)
	case escapesRoot(err):
		Error(w, http.StatusBadRequest, "path '%s' leads out of the volume through a symbolic link", t.virtual)
	default:
		Error(w, http.StatusInternalServerError, "%s: %v", t.virtual, err)
	}
}

func (s *api) handleVolumeStat(w http.ResponseWriter, _ *http.Request, t volumeTarget) {
	s.writeVolumeStat(w, t, http.StatusOK)
}

func (s *api) handleVolumePatch(w http.ResponseWriter, r *http.Request, t volumeTarget) {
	var req struct {
		UID  *uint32 `json:"uid"`
		GID  *uint32 `json:"gid"`
		Mode *uint32 `json:"mode"`
	}
	if err := httpjson.Decode(r, &req); err != nil {
		Error(w, http.StatusBadRequest, "invalid metadata: %v", err)
		return
	}
	if _, err := t.root.Lstat(t.rel); err != nil {
		volumeFSError(w, t, err)
		return
	}
	if req.Mode != nil {
		if *req.Mode > 0o7777 {
			Error(w, http.StatusBadRequest, "invalid mode %o", *req.Mode)
			return
		}
		if err := t.root.Chmod(t.rel, fs.FileMode(*req.Mode)); err != nil {
			volumeFSError(w, t, err)
			return
		}
	}
	if req.UID != nil || req.GID != nil {
		uid, gid := -1, -1
		if req.UID != nil {
			uid = int(*req.UID)
		}
		if req.GID != nil {
			gid = int(*req.GID)
		}
		if err := t.root.Lchown(t.rel, uid, gid); err != nil {
			volumeFSError(w, t, err)
			return
		}
	}
	s.writeVolumeStat(w, t, http.StatusOK)
}

func (s *api) handleVolumeRemove(w http.ResponseWriter, _ *http.Request, t volumeTarget) {
	if t.virtual == "/" {
		Error(w, http.StatusBadRequest, "the volume root cannot be deleted")
		return
	}
	if _, err := t.root.Lstat(t.rel); err != nil {
		volumeFSError(w, t, err)
		return
	}
	if err := t.root.RemoveAll(t.rel); err != nil {
		volumeFSError(w, t, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *api) handleVolumeList(w http.ResponseWriter, r *http.Request, t volumeTarget) {
	depth := 1
	if d := r.URL.Query().Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			Error(w, http.StatusBadRequest, "invalid depth %q", d)
			return
		}
		if n > 0 {
			depth = n
		}
	}
	fi, err := t.root.Stat(t.rel)
	if err != nil {
		volumeFSError(w, t, err)
		return
	}
	if !fi.IsDir() {
		Error(w, http.StatusBadRequest, "path '%s' is not a directory", t.virtual)
		return
	}
	out := []VolumeEntryStatJSON{}
	var walk func(rel, virtual string, level int) error
	walk = func(rel, virtual string, level int) error {
		entries, err := fs.ReadDir(t.root.FS(), rel)
		if err != nil {
			return err
		}
		for _, e := range entries {
			ch, cv := path.Join(rel, e.Name()), path.Join(virtual, e.Name())
			st, err := statVolumeEntry(t.root, ch, cv)
			if err != nil {
				continue // removed meanwhile
			}
			out = append(out, st)
			if st.Type == "directory" && level < depth {
				if err := walk(ch, cv, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(t.rel, t.virtual, 1); err != nil {
		volumeFSError(w, t, err)
		return
	}
	httpjson.Write(w, http.StatusOK, out)
}

// ownership reads the optional uid, gid, mode and force query parameters.
type ownership struct {
	uid, gid int
	mode     fs.FileMode
	force    bool
}

func parseOwnership(w http.ResponseWriter, r *http.Request, defMode fs.FileMode) (ownership, bool) {
	o := ownership{uid: -1, gid: -1, mode: defMode}
	q := r.URL.Query()
	for _, f := range []struct {
		name string
		set  func(uint64)
	}{
		{"uid", func(v uint64) { o.uid = int(v) }},
		{"gid", func(v uint64) { o.gid = int(v) }},
		{"mode", func(v uint64) { o.mode = fs.FileMode(v) & fs.ModePerm }},
	} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				Error(w, http.StatusBadRequest, "invalid %s %q", f.name, v)
				return o, false
			}
			f.set(n)
		}
	}
	o.force = q.Get("force") == "true"
	return o, true
}

func (o ownership) apply(root *os.Root, rel string) error {
	if err := root.Chmod(rel, o.mode); err != nil {
		return err
	}
	if o.uid >= 0 || o.gid >= 0 {
		return root.Lchown(rel, o.uid, o.gid)
	}
	return nil
}

// handleVolumeMkdir creates a directory; force creates missing parents.
func (s *api) handleVolumeMkdir(w http.ResponseWriter, r *http.Request, t volumeTarget) {
	o, ok := parseOwnership(w, r, 0o755)
	if !ok {
		return
	}
	var err error
	if o.force {
		err = t.root.MkdirAll(t.rel, o.mode)
	} else {
		err = t.root.Mkdir(t.rel, o.mode)
	}
	if err == nil {
		err = o.apply(t.root, t.rel)
	}
	if err != nil {
		volumeFSError(w, t, err)
		return
	}
	s.writeVolumeStat(w, t, http.StatusCreated)
}

func (s *api) handleVolumeDownload(w http.ResponseWriter, _ *http.Request, t volumeTarget) {
	f, err := t.root.Open(t.rel)
	if err != nil {
		volumeFSError(w, t, err)
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		Error(w, http.StatusBadRequest, "path '%s' is not a file", t.virtual)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, f)
}

// handleVolumeUpload writes a file: missing parents are created only with
// force (404 otherwise), and an existing file is overwritten.
func (s *api) handleVolumeUpload(w http.ResponseWriter, r *http.Request, t volumeTarget) {
	o, ok := parseOwnership(w, r, 0o644)
	if !ok {
		return
	}
	if t.virtual == "/" {
		Error(w, http.StatusBadRequest, "the volume root is a directory")
		return
	}
	dir := path.Dir(t.rel)
	if o.force {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			volumeFSError(w, t, err)
			return
		}
	}
	tmpName := path.Join(dir, ".upload-"+ids.Hex(8))
	tmp, err := t.root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		volumeFSError(w, t, err)
		return
	}
	_, err = io.Copy(tmp, r.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = o.apply(t.root, tmpName)
	}
	if err == nil {
		err = t.root.Rename(tmpName, t.rel)
	}
	if err != nil {
		_ = t.root.Remove(tmpName)
		volumeFSError(w, t, err)
		return
	}
	s.writeVolumeStat(w, t, http.StatusCreated)
}

// escapesRoot reports an os.Root refusing a path that a symbolic link leads out of the root (the
// os package does not export that error).
func escapesRoot(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}
