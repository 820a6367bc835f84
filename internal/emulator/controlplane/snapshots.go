package controlplane

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// SnapshotInfoJSON is E2B's SnapshotInfo.
type SnapshotInfoJSON struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

var snapshotNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,127}$`)

// captureFiles copies a sandbox's files into a build: its whole layer over
// the layers it started from with private roots, else its directory.
func (s *API) captureFiles(rec sandboxes.Record, m *envd.Machine, templateID string) (store.Build, error) {
	if m.Root() != nil {
		layers, err := s.captureLayer(m)
		if err != nil {
			return store.Build{}, err
		}
		return store.Build{Layers: layers, Base: rec.Build.Base, Config: rec.Build.Config}, nil
	}
	dir := filepath.Join(s.opts.DataDir, "templates", templateID+"-"+ids.New("", 8))
	if err := hostfs.CopyTree(m.Dir(), dir); err != nil {
		_ = os.RemoveAll(dir)
		return store.Build{}, err
	}
	envd.UnlinkMounts(dir, rec.Mounts)
	return store.Build{FilesDir: dir, Config: rec.Build.Config}, nil
}

// handleCreateSnapshot captures a running sandbox's files as a snapshot
// template; the same name again adds a build to the existing template.
func (s *API) handleCreateSnapshot(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	id, ok := sandboxRequest(w, r, &req, false)
	if !ok {
		return
	}
	name, tag := "", defaultTag
	if req.Name != nil {
		name = *req.Name
		if n, t, found := strings.Cut(name, ":"); found {
			tags, err := validateTags([]string{t})
			if err != nil {
				writeErrorf(w, http.StatusBadRequest, "Invalid name: %v", err)
				return
			}
			name, tag = n, tags[0]
		}
		if ns, rest, found := strings.Cut(name, "/"); found {
			if ns != teamNamespace {
				writeErrorf(w, http.StatusBadRequest, "namespace '%s' does not match the team namespace '%s'", ns, teamNamespace)
				return
			}
			name = rest
		}
		if !snapshotNamePattern.MatchString(name) {
			writeErrorf(w, http.StatusBadRequest, "invalid snapshot name '%s': use lowercase letters, digits, '-' and '_' (at most 128 characters)", *req.Name)
			return
		}
	}
	var info SnapshotInfoJSON
	m, err := s.sandboxes.Snapshot(id, func(rec sandboxes.Record, m *envd.Machine) (map[string]any, error) {
		t, found, ok := s.opts.Store.SnapshotByName(name)
		if !ok {
			return nil, refuse(http.StatusBadRequest, "name '%s' is already used by a template that is not a snapshot", name)
		}
		if !found {
			src := s.templateOf(rec)
			t = store.Template{
				ID: ids.New("", 20), Snapshot: true,
				CPUCount: src.CPUCount, MemoryMB: src.MemoryMB, DiskSizeMB: src.DiskSizeMB,
				CreatedAt: time.Now().UTC(),
			}
			if name != "" {
				t.Names = []string{teamNamespace + "/" + name}
			}
		}
		files, err := s.captureFiles(rec, m, t.ID)
		if err != nil {
			return nil, refuse(http.StatusInternalServerError, "error snapshotting sandbox: %v", err)
		}
		files.SourceSandbox = rec.ID
		info = snapshotInfo(s.opts.Store.AddSnapshot(t, tag, ids.UUID(), files, time.Now().UTC()))
		return map[string]any{"snapshot_id": info.SnapshotID}, nil
	})
	var refused apiError
	switch {
	case errors.As(err, &refused):
		writeError(w, refused.status, refused.msg)
		return
	case err != nil:
		notFoundSandbox(w, id) // E2B answers 404 for a paused sandbox too
		return
	}
	m.AddLog("info", "Snapshot created", map[string]string{"snapshotID": info.SnapshotID})
	httpjson.Write(w, http.StatusCreated, info)
}

// handleListSnapshots lists snapshot templates, each once, as its newest build (E2B's
// GetSnapshots): name selects one by name or ID, and with a tag its newest build under that
// tag; sandboxID selects those first taken from the sandbox.
func (s *API) handleListSnapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, offset, ok := parsePage(w, q)
	if !ok {
		return
	}
	f := store.SnapshotFilter{SandboxID: q.Get("sandboxID")}
	if q.Has("name") {
		raw := q.Get("name")
		n, err := parseTemplateName(raw)
		if err != nil {
			writeErrorf(w, http.StatusBadRequest, "Invalid name: %v", err)
			return
		}
		if err := namespaceError(n); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		f.Template, f.Tag = n.identifier(), n.tag
		if _, _, tagged := strings.Cut(raw, ":"); tagged && f.Tag == "" {
			f.Tag = defaultTag // "name:default" asks for the default tag; a bare name for any
		}
	}
	var all []SnapshotInfoJSON
	for _, sn := range s.opts.Store.Snapshots(f) {
		all = append(all, snapshotInfo(sn))
	}
	httpjson.Write(w, http.StatusOK, pageWithToken(w, all, offset, limit))
}
