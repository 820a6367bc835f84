package emulator

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

type snapshotInfoJSON struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

var snapshotNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,127}$`)

// captureFiles copies a sandbox's files into a build: its whole layer over
// the layers it started from with private roots, else its directory.
func (s *Server) captureFiles(sb *sandbox, templateID string) (state.Build, error) {
	if sb.Root() != nil {
		layers, err := s.captureLayer(sb)
		if err != nil {
			return state.Build{}, err
		}
		return state.Build{Layers: layers, Base: sb.build.Base, Config: sb.build.Config}, nil
	}
	dir := filepath.Join(s.dataDir, "templates", templateID+"-"+ids.New("", 8))
	if err := hostfs.CopyTree(sb.Dir(), dir); err != nil {
		_ = os.RemoveAll(dir)
		return state.Build{}, err
	}
	envd.UnlinkMounts(dir, sb.mounts)
	return state.Build{FilesDir: dir, Config: sb.build.Config}, nil
}

// handleCreateSnapshot captures a running sandbox's files as a snapshot
// template; the same name again adds a build to the existing template.
func (s *Server) handleCreateSnapshot(w http.ResponseWriter, r *http.Request) {
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
	sb := s.lockSandbox(w, id)
	if sb == nil {
		return
	}
	if sb.state != stateRunning {
		s.mu.Unlock()
		notFoundSandbox(w, id)
		return
	}
	t, found, ok := s.store.SnapshotTemplate(name)
	if !ok {
		s.mu.Unlock()
		writeErrorf(w, http.StatusBadRequest, "name '%s' is already used by a template that is not a snapshot", name)
		return
	}
	if !found {
		src := s.templateOf(sb)
		t = state.Template{
			ID: ids.New("", 20), Snapshot: true,
			CPUCount: src.CPUCount, MemoryMB: src.MemoryMB, DiskSizeMB: src.DiskSizeMB,
			CreatedAt: time.Now().UTC(),
		}
		if name != "" {
			t.Names = []string{teamNamespace + "/" + name}
		}
	}
	files, err := s.captureFiles(sb, t.ID)
	if err != nil {
		s.mu.Unlock()
		writeErrorf(w, http.StatusInternalServerError, "error snapshotting sandbox: %v", err)
		return
	}
	files.SourceSandbox = sb.id
	t = s.store.AddSnapshot(t, tag, ids.UUID(), files, time.Now().UTC())
	info := snapshotEntry(t, tag)
	s.recordEventLocked(sb, evCheckpointed, map[string]any{"snapshot_id": info.SnapshotID})
	s.mu.Unlock()
	sb.AddLog("info", "Snapshot created", map[string]string{"snapshotID": info.SnapshotID})
	httpjson.Write(w, http.StatusCreated, info)
}

func (s *Server) handleListSnapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := parseLimit(w, q, 100)
	if !ok {
		return
	}
	offset, ok := parseOffsetToken(w, q.Get("nextToken"))
	if !ok {
		return
	}
	sandboxID, name := q.Get("sandboxID"), q.Get("name")
	var byName state.Template
	_, nameTag, _ := strings.Cut(name, ":") // without a tag: every snapshot of the name
	nameTag = strings.ToLower(strings.TrimSpace(nameTag))
	found := true
	if name != "" {
		byName, found = s.store.FindTemplate(name)
	}
	var all []snapshotInfoJSON
	for _, t := range s.store.Templates() {
		if !t.Snapshot || (name != "" && (!found || t.ID != byName.ID)) {
			continue
		}
		for _, e := range snapshotEntries(t, sandboxID) {
			if nameTag == "" || strings.HasSuffix(e.SnapshotID, ":"+nameTag) {
				all = append(all, e)
			}
		}
	}
	page, next := paginate(all, offset, limit)
	if next != "" {
		w.Header().Set(hdrNextToken, next)
	}
	if page == nil {
		page = []snapshotInfoJSON{}
	}
	httpjson.Write(w, http.StatusOK, page)
}

// Offset tokens page lists that have a stable order.
func encodeOffsetToken(offset int) string {
	return base64.URLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func parseOffsetToken(w http.ResponseWriter, tok string) (int, bool) {
	if tok == "" {
		return 0, true
	}
	raw, err := base64.URLEncoding.DecodeString(tok)
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:")); err == nil && n >= 0 && strings.HasPrefix(string(raw), "offset:") {
			return n, true
		}
	}
	writeError(w, http.StatusBadRequest, "Invalid next token")
	return 0, false
}

func paginate[T any](all []T, offset, limit int) ([]T, string) {
	if offset >= len(all) {
		return nil, ""
	}
	end := offset + limit
	if end >= len(all) {
		return all[offset:], ""
	}
	return all[offset:end], encodeOffsetToken(end)
}

type forkResultJSON struct {
	Sandbox *sandboxJSON  `json:"sandbox,omitempty"`
	Error   *apiErrorJSON `json:"error,omitempty"`
}

// handleFork copies a running sandbox's files into count new sandboxes.
// Processes are not cloned (E2B forks memory too; the emulator cannot).
func (s *Server) handleFork(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Timeout *int32 `json:"timeout"`
		Count   *int32 `json:"count"`
	}
	id, ok := sandboxRequest(w, r, &req, true)
	if !ok {
		return
	}
	timeout, ok := s.timeoutField(w, req.Timeout, defaultTimeoutV1)
	if !ok {
		return
	}
	count := 1
	if req.Count != nil {
		if *req.Count < 1 || *req.Count > 100 {
			validationError(w, `request body has an error: doesn't match schema: Error at "/count": number must be between 1 and 100`)
			return
		}
		count = int(*req.Count)
	}
	if msg := s.forkCountOverLimit(count); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		writeError(w, http.StatusServiceUnavailable, "emulator is shutting down")
		return
	}
	src := s.lookupLocked(w, id)
	if src == nil {
		return
	}
	if src.state != stateRunning {
		writeErrorf(w, http.StatusConflict, "Sandbox '%s' cannot be forked while in '%s' state", id, src.state)
		return
	}
	snap := state.Build{FilesDir: src.Dir(), Config: src.build.Config}
	if src.Root() != nil {
		captured, err := s.captureFiles(src, src.tmpl.ID)
		if err != nil {
			writeErrorf(w, http.StatusInternalServerError, "error forking sandbox: %v", err)
			return
		}
		snap = captured
	}
	results := make([]forkResultJSON, 0, count)
	var created []*sandbox
	for i := 0; i < count; i++ {
		if msg := s.sandboxLimitLocked(); msg != "" { // each fork starts or fails on its own
			results = append(results, forkResultJSON{Error: &apiErrorJSON{Code: http.StatusTooManyRequests, Message: msg}})
			continue
		}
		sb, err := s.newSandboxLocked(src.tmpl, snap, src.templateRef, src.mounts, src.envVars, src.secure)
		if err != nil {
			results = append(results, forkResultJSON{Error: &apiErrorJSON{Code: http.StatusInternalServerError, Message: "error forking sandbox: " + err.Error()}})
			continue
		}
		now := time.Now().UTC()
		sb.build = src.build
		sb.startedAt, sb.endAt, sb.resumeTimeout = now, now.Add(timeout), timeout
		sb.autoPause, sb.autoResume = src.autoPause, src.autoResume
		sb.autoPauseKeeps = src.autoPauseKeeps
		sb.allowInternet, sb.network = src.allowInternet, src.network
		sb.metadata = copyMap(src.metadata)
		s.sandboxes[sb.id] = sb
		sb.executionID = ids.UUID()
		s.recordEventLocked(sb, evCreated, map[string]any{"source_sandbox_id": src.id})
		s.store.CountStart()
		s.counters.add(func(c *Counters) { c.SandboxesCreated++ })
		s.armTimerLocked(sb)
		resp := s.sandboxResponseLocked(sb)
		results = append(results, forkResultJSON{Sandbox: &resp})
		created = append(created, sb)
	}
	go func() {
		for _, sb := range created {
			sb.AddLog("info", "Sandbox created by fork", map[string]string{"sourceSandboxID": id})
			sb.TakeSample()
		}
	}()
	httpjson.Write(w, http.StatusCreated, results)
}
