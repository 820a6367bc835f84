package emulator

import (
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

type teamUserJSON struct {
	ID    string  `json:"id"`
	Email *string `json:"email"`
}

// templateJSON is E2B's Template schema (GET /v2/templates).
type templateJSON struct {
	TemplateID    string        `json:"templateID"`
	BuildID       string        `json:"buildID"`
	CPUCount      int32         `json:"cpuCount"`
	MemoryMB      int32         `json:"memoryMB"`
	DiskSizeMB    int32         `json:"diskSizeMB"`
	Public        bool          `json:"public"`
	Aliases       []string      `json:"aliases"`
	Names         []string      `json:"names"`
	CreatedAt     time.Time     `json:"createdAt"`
	UpdatedAt     time.Time     `json:"updatedAt"`
	CreatedBy     *teamUserJSON `json:"createdBy"`
	LastSpawnedAt *time.Time    `json:"lastSpawnedAt"`
	SpawnCount    int64         `json:"spawnCount"`
	BuildCount    int32         `json:"buildCount"`
	EnvdVersion   string        `json:"envdVersion"`
	BuildStatus   string        `json:"buildStatus"`
}

type templateBuildJSON struct {
	BuildID     string     `json:"buildID"`
	Status      string     `json:"status"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	FinishedAt  *time.Time `json:"finishedAt,omitempty"`
	CPUCount    int32      `json:"cpuCount"`
	MemoryMB    int32      `json:"memoryMB"`
	DiskSizeMB  int32      `json:"diskSizeMB"`
	EnvdVersion string     `json:"envdVersion"`
}

type templateWithBuildsJSON struct {
	TemplateID    string              `json:"templateID"`
	Public        bool                `json:"public"`
	Aliases       []string            `json:"aliases"`
	Names         []string            `json:"names"`
	CreatedAt     time.Time           `json:"createdAt"`
	UpdatedAt     time.Time           `json:"updatedAt"`
	LastSpawnedAt *time.Time          `json:"lastSpawnedAt"`
	SpawnCount    int64               `json:"spawnCount"`
	Builds        []templateBuildJSON `json:"builds"`
}

func (t *template) toJSON() templateJSON {
	b := t.latestBuild()
	return templateJSON{
		TemplateID: t.id, BuildID: b.id, CPUCount: t.cpuCount, MemoryMB: t.memoryMB, DiskSizeMB: t.diskSizeMB,
		Public: t.public, Aliases: t.aliases(), Names: append([]string{}, t.names...),
		CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, LastSpawnedAt: t.lastSpawnedAt,
		SpawnCount: t.spawnCount, BuildCount: int32(len(t.builds)), EnvdVersion: envdVersion,
		BuildStatus: t.builds[len(t.builds)-1].status,
	}
}

// handleListTemplates lists team templates (not public ones such as base,
// not snapshots), paged on /v2.
func (s *Server) handleListTemplates(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, offset := 1<<30, 0
	if r.Pattern == "GET /v2/templates" {
		var ok bool
		if limit, ok = parseLimit(w, q, 100); !ok {
			return
		}
		if offset, ok = parseOffsetToken(w, q.Get("nextToken")); !ok {
			return
		}
	}
	s.mu.Lock()
	var all []templateJSON
	for _, t := range s.sortedTemplatesLocked() {
		if t.teamOwned() && !t.snapshot {
			all = append(all, t.toJSON())
		}
	}
	s.mu.Unlock()
	page, next := paginate(all, offset, limit)
	if next != "" {
		w.Header().Set(hdrNextToken, next)
	}
	if page == nil {
		page = []templateJSON{}
	}
	httpjson.Write(w, http.StatusOK, page)
}

func templateNotFound(w http.ResponseWriter, ref string) {
	writeErrorf(w, http.StatusNotFound, "template '%s' not found", ref)
}

// handleGetTemplate returns a template with its builds, newest first, paged.
func (s *Server) handleGetTemplate(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("id")
	q := r.URL.Query()
	limit, ok := parseLimit(w, q, 100)
	if !ok {
		return
	}
	offset, ok := parseOffsetToken(w, q.Get("nextToken"))
	if !ok {
		return
	}
	s.mu.Lock()
	t := s.findTemplateLocked(ref)
	if t == nil {
		s.mu.Unlock()
		templateNotFound(w, ref)
		return
	}
	builds := make([]templateBuildJSON, 0, len(t.builds))
	for i := len(t.builds) - 1; i >= 0; i-- {
		b := t.builds[i]
		builds = append(builds, templateBuildJSON{
			BuildID: b.id, Status: b.status, CreatedAt: b.createdAt, UpdatedAt: b.updatedAt, FinishedAt: b.finishedAt,
			CPUCount: b.cpuCount, MemoryMB: b.memoryMB, DiskSizeMB: t.diskSizeMB, EnvdVersion: envdVersion,
		})
	}
	out := templateWithBuildsJSON{
		TemplateID: t.id, Public: t.public, Aliases: t.aliases(), Names: append([]string{}, t.names...),
		CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, LastSpawnedAt: t.lastSpawnedAt, SpawnCount: t.spawnCount,
	}
	s.mu.Unlock()
	page, next := paginate(builds, offset, limit)
	if next != "" {
		w.Header().Set(hdrNextToken, next)
	}
	if page == nil {
		page = []templateBuildJSON{}
	}
	out.Builds = page
	httpjson.Write(w, http.StatusOK, out)
}

// handleDeleteTemplate deletes a team template or snapshot; E2B refuses while
// sandboxes use it.
func (s *Server) handleDeleteTemplate(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("id")
	s.mu.Lock()
	ident, _, _ := strings.Cut(ref, ":") // E2B deletes the whole template, whatever the tag
	t := s.findTemplateLocked(ident)
	if t == nil {
		s.mu.Unlock()
		templateNotFound(w, ref)
		return
	}
	if !t.teamOwned() {
		s.mu.Unlock()
		writeErrorf(w, http.StatusForbidden, "you don't have access to template '%s'", ref)
		return
	}
	for _, st := range []string{stateRunning, statePaused} {
		for _, sb := range s.sandboxes {
			if sb.tmpl == t && sb.state == st {
				s.mu.Unlock()
				writeErrorf(w, http.StatusBadRequest, "cannot delete template '%s' because there are %s sandboxes using it", ref, st)
				return
			}
		}
	}
	delete(s.templates, t.id)
	for _, b := range t.builds {
		if b.cancel != nil {
			b.cancel()
		}
	}
	s.saveStateLocked()
	s.mu.Unlock()
	s.removeTemplateFiles(t)
	w.WriteHeader(http.StatusNoContent)
}

// handleTemplateSub serves GET /templates/aliases/{alias} and GET /templates/{id}/tags.
func (s *Server) handleTemplateSub(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.PathValue("id") == "aliases":
		s.handleTemplateAlias(w, r.PathValue("sub"))
	case r.PathValue("sub") == "tags":
		s.handleListTags(w, r.PathValue("id"))
	default:
		writeError(w, http.StatusNotFound, "validation error: no matching operation was found")
	}
}

func (s *Server) handleTemplateAlias(w http.ResponseWriter, alias string) {
	s.mu.Lock()
	t := s.findTemplateLocked(alias)
	s.mu.Unlock()
	if t == nil || t.id == alias {
		writeErrorf(w, http.StatusNotFound, "template with alias '%s' not found", alias)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"templateID": t.id, "public": t.public})
}
