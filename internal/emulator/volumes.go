package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// volume is a team volume: a directory shared by every sandbox that mounts
// it. Its record and content live under <data dir>/volumes/<id>, so they
// survive sandbox kills and, with a fixed data dir, emulator restarts.
type volume struct {
	ID        string    `json:"volumeID"`
	Name      string    `json:"name"`
	Key       string    `json:"key"` // signs the volume's content token
	CreatedAt time.Time `json:"createdAt"`
}

var volumeNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

func (s *Server) volumesDir() string          { return filepath.Join(s.dataDir, "volumes") }
func (s *Server) volumeDir(id string) string  { return filepath.Join(s.volumesDir(), id) }
func (s *Server) volumeData(id string) string { return filepath.Join(s.volumeDir(id), "data") }

// loadVolumes reads the volumes a previous run left in the data dir.
func (s *Server) loadVolumes() error {
	entries, err := os.ReadDir(s.volumesDir())
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(s.volumesDir(), e.Name(), "volume.json"))
		if err != nil {
			continue // a half-created or foreign directory
		}
		var v volume
		if err := json.Unmarshal(b, &v); err != nil || v.ID != e.Name() {
			s.logf("emulator: ignoring volume record %s: %v", e.Name(), err)
			continue
		}
		s.volumes[v.ID] = &v
	}
	return nil
}

// volumeToken is a JWT (HS256) naming the volume, signed with its key, so
// it stays valid across restarts and is useless for any other volume.
func volumeToken(v *volume) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"volumeID": v.ID, "iat": v.CreatedAt.Unix()})
	body := head + "." + enc.EncodeToString(claims)
	return body + "." + enc.EncodeToString(volumeSign(v, body))
}

func volumeSign(v *volume, body string) []byte {
	m := hmac.New(sha256.New, []byte(v.Key))
	m.Write([]byte(body))
	return m.Sum(nil)
}

func validVolumeToken(v *volume, token string) bool {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	return err == nil && hmac.Equal(sig, volumeSign(v, token[:i]))
}

type volumeJSON struct {
	VolumeID string `json:"volumeID"`
	Name     string `json:"name"`
	Token    string `json:"token,omitempty"`
}

func (s *Server) handleCreateVolume(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	if err := decodeBody(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	if req.Name == nil {
		validationError(w, `request body has an error: doesn't match schema: Error at "/name": property "name" is missing`)
		return
	}
	if !volumeNamePattern.MatchString(*req.Name) {
		validationError(w, `request body has an error: doesn't match schema: Error at "/name": string doesn't match the regular expression "^[a-zA-Z0-9_-]+$"`)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.volumeByNameLocked(*req.Name) != nil {
		writeErrorf(w, http.StatusBadRequest, "volume with name '%s' already exists", *req.Name)
		return
	}
	v := &volume{ID: newID("vol", 17), Name: *req.Name, Key: randomHex(32), CreatedAt: time.Now().UTC()}
	if err := s.persistVolume(v); err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error creating volume: %v", err)
		return
	}
	s.volumes[v.ID] = v
	respondOrDrop(w, r, http.StatusCreated, volumeJSON{VolumeID: v.ID, Name: v.Name, Token: volumeToken(v)})
}

// persistVolume writes the content directory, then the record: a record
// always has its content.
func (s *Server) persistVolume(v *volume) error {
	if err := os.MkdirAll(s.volumeData(v.ID), 0o777); err != nil {
		return err
	}
	if err := os.Chmod(s.volumeData(v.ID), 0o777); err != nil { // sandbox users share it
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.volumeDir(v.ID), "volume.json"), b, 0o600)
}

func (s *Server) volumeByNameLocked(name string) *volume {
	for _, v := range s.volumes {
		if v.Name == name {
			return v
		}
	}
	return nil
}

func (s *Server) handleListVolumes(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := make([]volumeJSON, 0, len(s.volumes))
	for _, v := range s.volumes {
		out = append(out, volumeJSON{VolumeID: v.ID, Name: v.Name})
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetVolume(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.volumes[r.PathValue("id")]
	s.mu.Unlock()
	if v == nil {
		writeErrorf(w, http.StatusNotFound, "volume '%s' not found", r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, volumeJSON{VolumeID: v.ID, Name: v.Name, Token: volumeToken(v)})
}

// handleDeleteVolume refuses while a running or paused sandbox mounts the
// volume (see the package doc), then removes the record and the content.
func (s *Server) handleDeleteVolume(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.volumes[id]
	if v == nil {
		writeErrorf(w, http.StatusNotFound, "volume '%s' not found", id)
		return
	}
	if users := s.volumeUsersLocked(v.Name); len(users) > 0 {
		writeErrorf(w, http.StatusConflict, "volume '%s' is mounted by sandbox(es) %s; kill them before deleting the volume",
			v.Name, strings.Join(users, ", "))
		return
	}
	delete(s.volumes, id)
	if err := os.RemoveAll(s.volumeDir(id)); err != nil {
		s.logf("emulator: remove volume %s: %v", id, err)
	}
	w.WriteHeader(http.StatusNoContent)
}

// volumeUsersLocked lists the alive sandboxes that mount the named volume.
func (s *Server) volumeUsersLocked(name string) []string {
	var ids []string
	for _, sb := range s.sandboxes {
		for _, m := range sb.mounts {
			if m.Name == name {
				ids = append(ids, sb.id)
				break
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// resolveMountsLocked validates a create's volumeMounts and binds each to
// its volume's directory. It returns a message for a 400 on bad input.
func (s *Server) resolveMountsLocked(req []volumeMountJSON) ([]volumeMount, string) {
	seen := map[string]bool{}
	out := make([]volumeMount, 0, len(req))
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
		v := s.volumeByNameLocked(m.Name)
		if v == nil {
			return nil, fmt.Sprintf("volume '%s' not found", m.Name)
		}
		out = append(out, volumeMount{Name: v.Name, Path: clean, dir: s.volumeData(v.ID)})
	}
	// Longest path first: a nested mount wins over the one it sits in.
	sort.Slice(out, func(i, j int) bool { return len(out[i].Path) > len(out[j].Path) })
	return out, ""
}
