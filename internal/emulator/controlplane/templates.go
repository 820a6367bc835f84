package controlplane

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

type teamUserJSON struct {
	ID    string  `json:"id"`
	Email *string `json:"email"`
}

// TemplateJSON is E2B's Template schema (GET /v2/templates).
type TemplateJSON struct {
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

// TemplateBuildJSON is E2B's TemplateBuild.
type TemplateBuildJSON struct {
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

// TemplateWithBuildsJSON is E2B's TemplateWithBuilds.
type TemplateWithBuildsJSON struct {
	TemplateID    string              `json:"templateID"`
	Public        bool                `json:"public"`
	Aliases       []string            `json:"aliases"`
	Names         []string            `json:"names"`
	CreatedAt     time.Time           `json:"createdAt"`
	UpdatedAt     time.Time           `json:"updatedAt"`
	LastSpawnedAt *time.Time          `json:"lastSpawnedAt"`
	SpawnCount    int64               `json:"spawnCount"`
	Builds        []TemplateBuildJSON `json:"builds"`
}

func templateToJSON(t store.Template) TemplateJSON {
	b := t.LatestBuild()
	return TemplateJSON{
		TemplateID: t.ID, BuildID: b.ID, CPUCount: t.CPUCount, MemoryMB: t.MemoryMB, DiskSizeMB: t.DiskSizeMB,
		Public: t.Public, Aliases: t.Aliases(), Names: append([]string{}, t.Names...),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, LastSpawnedAt: t.LastSpawnedAt,
		SpawnCount: t.SpawnCount, BuildCount: int32(len(t.Builds)), EnvdVersion: EnvdVersion,
		BuildStatus: t.Builds[len(t.Builds)-1].Status,
	}
}

// handleListTemplates lists team templates (not public ones such as base,
// not snapshots), paged on /v2.
func (s *API) handleListTemplates(w http.ResponseWriter, r *http.Request) {
	if !teamParamMatches(w, r, queryParam(r, "teamID")) {
		return
	}
	q := r.URL.Query()
	limit, offset := 1<<30, 0
	if r.Pattern == "GET /v2/templates" {
		var ok bool
		if limit, offset, ok = parsePage(w, q); !ok {
			return
		}
	}
	var all []TemplateJSON
	for _, t := range s.opts.Store.Templates() {
		if t.TeamOwned() && !t.Snapshot {
			all = append(all, templateToJSON(t))
		}
	}
	httpjson.Write(w, http.StatusOK, pageWithToken(w, all, offset, limit))
}

func templateNotFound(w http.ResponseWriter, ref string) {
	writeErrorf(w, http.StatusNotFound, "template '%s' not found", ref)
}

// handleGetTemplate returns a template with its builds, newest first, paged.
func (s *API) handleGetTemplate(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("id")
	q := r.URL.Query()
	limit, offset, ok := parsePage(w, q)
	if !ok {
		return
	}
	t, found := s.opts.Store.FindTemplate(ref)
	if !found {
		templateNotFound(w, ref)
		return
	}
	builds := make([]TemplateBuildJSON, 0, len(t.Builds))
	for i := len(t.Builds) - 1; i >= 0; i-- {
		b := t.Builds[i]
		builds = append(builds, TemplateBuildJSON{
			BuildID: b.ID, Status: b.Status, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt, FinishedAt: b.FinishedAt,
			CPUCount: b.CPUCount, MemoryMB: b.MemoryMB, DiskSizeMB: t.DiskSizeMB, EnvdVersion: EnvdVersion,
		})
	}
	out := TemplateWithBuildsJSON{
		TemplateID: t.ID, Public: t.Public, Aliases: t.Aliases(), Names: append([]string{}, t.Names...),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, LastSpawnedAt: t.LastSpawnedAt, SpawnCount: t.SpawnCount,
	}
	out.Builds = pageWithToken(w, builds, offset, limit)
	httpjson.Write(w, http.StatusOK, out)
}

// handleDeleteTemplate deletes a team template or snapshot; E2B refuses while
// sandboxes use it.
func (s *API) handleDeleteTemplate(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("id")
	ident, _, _ := strings.Cut(ref, ":") // E2B deletes the whole template, whatever the tag
	t, found := s.opts.Store.FindTemplate(ident)
	if !found {
		templateNotFound(w, ref)
		return
	}
	if !t.TeamOwned() {
		writeErrorf(w, http.StatusForbidden, "you don't have access to template '%s'", ref)
		return
	}
	// No sandbox can start from it while the registry runs the delete.
	if st := s.sandboxes.IfTemplateUnused(t.ID, func() { t, found = s.opts.Store.DeleteTemplate(t.ID) }); st != "" {
		writeErrorf(w, http.StatusBadRequest, "cannot delete template '%s' because there are %s sandboxes using it", ref, st)
		return
	}
	if found {
		s.removeTemplateFiles(t)
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleTemplateSub serves GET /templates/aliases/{alias} and GET /templates/{id}/tags.
func (s *API) handleTemplateSub(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.PathValue("id") == "aliases":
		s.handleTemplateAlias(w, r.PathValue("sub"))
	case r.PathValue("sub") == "tags":
		s.handleListTags(w, r.PathValue("id"))
	default:
		writeError(w, http.StatusNotFound, "validation error: no matching operation was found")
	}
}

func (s *API) handleTemplateAlias(w http.ResponseWriter, alias string) {
	t, found := s.opts.Store.FindTemplate(alias)
	if !found || t.ID == alias {
		writeErrorf(w, http.StatusNotFound, "template with alias '%s' not found", alias)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"templateID": t.ID, "public": t.Public})
}

// handleUpdateTemplate answers PATCH /v2/templates/{id} (names back) and the
// deprecated PATCH /templates/{id} (no body).
func (s *API) handleUpdateTemplate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Public *bool `json:"public"`
	}
	err := httpjson.Decode(r, &req)
	if err != nil {
		validationError(w, err.Error())
		return
	}
	ref := r.PathValue("id")
	t, found := s.opts.Store.FindTemplate(ref)
	if found {
		t, err = s.opts.Store.SetPublic(t.ID, req.Public)
	}
	switch {
	case !found || errors.Is(err, store.ErrNotFound):
		templateNotFound(w, ref)
		return
	case err != nil:
		noTemplateAccess(w, ref)
		return
	}
	names := append([]string{}, t.Names...)
	if r.Pattern == "PATCH /templates/{id}" {
		w.WriteHeader(http.StatusOK)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"names": names})
}
