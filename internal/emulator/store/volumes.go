package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Volume is a team volume's record: a directory shared by every sandbox
// that mounts it. Record and content live under the volumes directory
// (<id>/volume.json and <id>/data), so they survive sandbox kills and, with
// a fixed data dir, restarts.
type Volume struct {
	ID        string    `json:"volumeID"`
	Name      string    `json:"name"`
	Key       string    `json:"key"` // signs the volume's content token
	CreatedAt time.Time `json:"createdAt"`
}

// ErrVolumeExists is CreateVolume's answer for a name already taken.
var ErrVolumeExists = errors.New("volume name taken")

// OpenVolumes keeps volume records under dir and reads those a previous run
// left there; it returns why any directory there was not taken as a volume.
func (st *Store) OpenVolumes(dir string) (ignored []error, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.volumesDir = dir
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "volume.json"))
		if err != nil {
			continue // a half-created or foreign directory
		}
		var v Volume
		if err := json.Unmarshal(b, &v); err != nil || v.ID != e.Name() {
			ignored = append(ignored, fmt.Errorf("volume record %s: %v", e.Name(), err))
			continue
		}
		st.volumes[v.ID] = v
	}
	return ignored, nil
}

// VolumeDir is where the volume id keeps its record and content.
func (st *Store) VolumeDir(id string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return filepath.Join(st.volumesDir, id)
}

// VolumeData is the volume's content directory.
func (st *Store) VolumeData(id string) string { return filepath.Join(st.VolumeDir(id), "data") }

// CreateVolume keeps a new volume: its content directory, then its record,
// so a record always has its content.
func (st *Store) CreateVolume(v Volume) (Volume, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, o := range st.volumes {
		if o.Name == v.Name {
			return Volume{}, ErrVolumeExists
		}
	}
	data := filepath.Join(st.volumesDir, v.ID, "data")
	if err := os.MkdirAll(data, 0o777); err != nil {
		return Volume{}, err
	}
	if err := os.Chmod(data, 0o777); err != nil { // sandbox users share it
		return Volume{}, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Volume{}, err
	}
	if err := os.WriteFile(filepath.Join(st.volumesDir, v.ID, "volume.json"), b, 0o600); err != nil {
		return Volume{}, err
	}
	st.volumes[v.ID] = v
	return v, nil
}

// Volume finds a volume by ID.
func (st *Store) Volume(id string) (Volume, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	v, ok := st.volumes[id]
	return v, ok
}

// VolumeByName finds a volume by name.
func (st *Store) VolumeByName(name string) (Volume, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, v := range st.volumes {
		if v.Name == name {
			return v, true
		}
	}
	return Volume{}, false
}

// Volumes lists the volumes by name.
func (st *Store) Volumes() []Volume {
	st.mu.Lock()
	out := make([]Volume, 0, len(st.volumes))
	for _, v := range st.volumes {
		out = append(out, v)
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DeleteVolume forgets the volume and removes its record and content; the
// record is gone even when removing the files fails.
func (st *Store) DeleteVolume(id string) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.volumes[id]; !ok {
		return false, nil
	}
	delete(st.volumes, id)
	return true, os.RemoveAll(filepath.Join(st.volumesDir, id))
}
