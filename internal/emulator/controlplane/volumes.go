package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/volumeapi"
)

func (s *API) volumeData(id string) string { return s.opts.Store.VolumeData(id) }

// VolumeAndTokenJSON is E2B's VolumeAndToken (a volume with its content token).
type VolumeAndTokenJSON struct {
	VolumeID string `json:"volumeID"`
	Name     string `json:"name"`
	Token    string `json:"token,omitempty"`
}

func (s *API) handleCreateVolume(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"name"` // required, ^[a-zA-Z0-9_-]+$: the request validator checked
	}
	if !decodeBody(w, r, &req) {
		return
	}
	v, err := s.opts.Store.CreateVolume(store.Volume{ID: ids.New("vol", 17), Name: req.Name, Key: ids.Hex(32), CreatedAt: time.Now().UTC()})
	if errors.Is(err, store.ErrVolumeExists) {
		writeErrorf(w, http.StatusBadRequest, "volume with name '%s' already exists", req.Name)
		return
	}
	if err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error creating volume: %v", err)
		return
	}
	respondOrDrop(w, r, http.StatusCreated, VolumeAndTokenJSON{VolumeID: v.ID, Name: v.Name, Token: volumeapi.Token(v)})
}

func (s *API) handleListVolumes(w http.ResponseWriter, _ *http.Request) {
	out := []VolumeAndTokenJSON{}
	for _, v := range s.opts.Store.Volumes() {
		out = append(out, VolumeAndTokenJSON{VolumeID: v.ID, Name: v.Name})
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (s *API) handleGetVolume(w http.ResponseWriter, r *http.Request) {
	v, ok := s.opts.Store.Volume(r.PathValue("id"))
	if !ok {
		writeErrorf(w, http.StatusNotFound, "volume '%s' not found", r.PathValue("id"))
		return
	}
	httpjson.Write(w, http.StatusOK, VolumeAndTokenJSON{VolumeID: v.ID, Name: v.Name, Token: volumeapi.Token(v)})
}

// handleDeleteVolume refuses while a running or paused sandbox mounts the
// volume (see the package doc), then removes the record and the content.
func (s *API) handleDeleteVolume(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, ok := s.opts.Store.Volume(id)
	if !ok {
		writeErrorf(w, http.StatusNotFound, "volume '%s' not found", id)
		return
	}
	// No sandbox can mount it while the registry runs the delete.
	users := s.sandboxes.IfVolumeUnused(v.Name, func() {
		if _, err := s.opts.Store.DeleteVolume(id); err != nil {
			s.opts.Logf("emulator: remove volume %s: %v", id, err)
		}
	})
	if len(users) > 0 {
		writeErrorf(w, http.StatusConflict, "volume '%s' is mounted by sandbox(es) %s; kill them before deleting the volume",
			v.Name, strings.Join(users, ", "))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// resolveMounts validates a create's volumeMounts and binds each to
// its volume's directory. It returns a message for a 400 on bad input.
func (s *API) resolveMounts(req []sandboxVolumeMountJSON) ([]envd.VolumeMount, string) {
	seen := map[string]bool{}
	out := make([]envd.VolumeMount, 0, len(req))
	for _, m := range req {
		clean := filepath.ToSlash(filepath.Clean(m.Path))
		switch {
		case m.Name == "":
			return nil, "volume mount name must not be empty"
		case !strings.HasPrefix(m.Path, "/"):
			return nil, fmt.Sprintf("volume mount path '%s' must be absolute", m.Path)
		case clean == "/":
			return nil, "a volume cannot be mounted at /"
		case seen[clean]:
			return nil, fmt.Sprintf("volume mount path '%s' is used more than once", clean)
		}
		seen[clean] = true
		v, ok := s.opts.Store.VolumeByName(m.Name)
		if !ok {
			return nil, fmt.Sprintf("volume '%s' not found", m.Name)
		}
		out = append(out, envd.VolumeMount{Name: v.Name, Path: clean, Dir: s.volumeData(v.ID)})
	}
	return out, "" // envd orders them: a nested mount wins over the one it sits in
}
