package controlplane

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// E2B's deprecated Dockerfile builds, which only a user's access token may
// ask for (e2b-dev/infra packages/api/internal/handlers/
// deprecated_template_request_build.go and deprecated_template_start_build.go):
// POST /templates registers a waiting build of a new template, POST
// /templates/{templateID} one of an existing template; the CLI then pushes
// the image it built from the Dockerfile to E2B's registry as
// docker.e2b.dev/e2b/custom-envs/<templateID>:<buildID> and POST
// /templates/{templateID}/builds/{buildID} builds the template from it. The
// emulator has no registry: the build starts from the image store's image
// of that name (or the host base root where -host-root-images allows), and
// fails naming it otherwise. The Dockerfile is kept for the build, not run.

// legacyImageRegistry is where E2B's CLI pushes a Dockerfile build's image.
const legacyImageRegistry = "docker.e2b.dev/e2b/custom-envs/"

// legacyBuildRequestJSON is E2B's TemplateBuildRequest.
type legacyBuildRequestJSON struct {
	Alias      *string `json:"alias"`
	Dockerfile string  `json:"dockerfile"`
	TeamID     *string `json:"teamID"`
	StartCmd   *string `json:"startCmd"`
	ReadyCmd   *string `json:"readyCmd"`
	CPUCount   *int32  `json:"cpuCount"`
	MemoryMB   *int32  `json:"memoryMB"`
}

// templateLegacyJSON is E2B's TemplateLegacy, the answer of the deprecated
// build requests.
type templateLegacyJSON struct {
	TemplateID    string     `json:"templateID"`
	BuildID       string     `json:"buildID"`
	CPUCount      int32      `json:"cpuCount"`
	MemoryMB      int32      `json:"memoryMB"`
	DiskSizeMB    int32      `json:"diskSizeMB"`
	Public        bool       `json:"public"`
	Aliases       []string   `json:"aliases"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	CreatedBy     *struct{}  `json:"createdBy"`
	LastSpawnedAt *time.Time `json:"lastSpawnedAt"`
	SpawnCount    int64      `json:"spawnCount"`
	BuildCount    int32      `json:"buildCount"`
	EnvdVersion   string     `json:"envdVersion"`
}

// legacyBuild is what a deprecated build request leaves for its start.
type legacyBuild struct {
	startCmd, readyCmd *string
}

// legacyBuildSet holds the requested, not yet started deprecated builds by
// build ID (in memory: a restart forgets them, and their start then runs
// without start and ready commands).
type legacyBuildSet struct {
	mu     sync.Mutex
	builds map[string]legacyBuild
}

func (l *legacyBuildSet) put(buildID string, b legacyBuild) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.builds == nil {
		l.builds = map[string]legacyBuild{}
	}
	l.builds[buildID] = b
}

func (l *legacyBuildSet) take(buildID string) legacyBuild {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.builds[buildID]
	delete(l.builds, buildID)
	return b
}

// handleLegacyRequestBuild answers POST /templates and POST
// /templates/{id}: a waiting build, as E2B's PostTemplates and
// PostTemplatesTemplateID register it.
func (s *API) handleLegacyRequestBuild(w http.ResponseWriter, r *http.Request) {
	var req legacyBuildRequestJSON
	if !decodeBody(w, r, &req) {
		return
	}
	templateID, create := r.PathValue("id"), r.PathValue("id") == ""
	if !create {
		if _, err := parseTemplateName(templateID); err != nil {
			writeErrorf(w, http.StatusBadRequest, "Invalid template ID: %s", templateID)
			return
		}
	}
	if !callerTeam(w, r, req.TeamID) {
		return
	}
	if !create {
		t, found := s.opts.Store.Template(templateID)
		switch {
		case !found || t.Snapshot:
			writeErrorf(w, http.StatusNotFound, "Template '%s' not found", templateID)
			return
		case !t.TeamOwned():
			writeErrorf(w, http.StatusForbidden, "You do not have access to the template '%s'", templateID)
			return
		}
	}
	alias, tags := "", []string{defaultTag}
	if req.Alias != nil {
		name, err := parseTemplateName(*req.Alias)
		if err != nil {
			writeErrorf(w, http.StatusBadRequest, "Invalid alias: %v", err)
			return
		}
		alias = name.alias
		if name.tag != "" {
			tags = []string{name.tag}
		}
	}
	if msg := resourceLimitError(req.CPUCount, req.MemoryMB); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if create {
		templateID = ids.New("", 20)
	}
	buildID := ids.UUID()
	t, err := s.opts.Store.RequestLegacyBuild(templateID, create, alias, buildID, req.CPUCount, req.MemoryMB, tags, time.Now().UTC())
	switch {
	case errors.Is(err, store.ErrAliasTaken):
		writeErrorf(w, http.StatusConflict, "Alias '%s' is already used", alias)
		return
	case err != nil:
		writeErrorf(w, http.StatusNotFound, "Template '%s' not found", templateID)
		return
	}
	s.legacy.put(buildID, legacyBuild{startCmd: req.StartCmd, readyCmd: req.ReadyCmd})
	httpjson.Write(w, http.StatusAccepted, templateLegacyJSON{
		TemplateID: t.ID, BuildID: buildID, CPUCount: t.CPUCount, MemoryMB: t.MemoryMB, DiskSizeMB: t.DiskSizeMB,
		Public: t.Public, Aliases: t.Aliases(), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		LastSpawnedAt: t.LastSpawnedAt, SpawnCount: t.SpawnCount, BuildCount: int32(len(t.Builds)), EnvdVersion: EnvdVersion,
	})
}

// handleLegacyStartBuild answers POST /templates/{id}/builds/{buildID}: the
// build runs from the image E2B's CLI would have pushed (see above).
func (s *API) handleLegacyStartBuild(w http.ResponseWriter, r *http.Request) {
	templateID, buildID := r.PathValue("id"), r.PathValue("buildID")
	if !uuidPattern.MatchString(buildID) {
		writeErrorf(w, http.StatusBadRequest, "Invalid build ID: %s", buildID)
		return
	}
	t, b, found := s.buildOf(w, templateID, buildID)
	if !found {
		return
	}
	if !t.TeamOwned() {
		writeError(w, http.StatusForbidden, "User does not have access to the template")
		return
	}
	if b.Status != buildWaiting {
		writeError(w, http.StatusBadRequest, "build is not in waiting state")
		return
	}
	lb := s.legacy.take(buildID)
	image := legacyImageRegistry + templateID + ":" + buildID
	req := builder.Request{FromImage: &image, StartCmd: lb.startCmd, ReadyCmd: lb.readyCmd, Force: true}
	s.startBuild(w, templateID, buildID, req)
}

// teamJSON is E2B's Team.
type teamJSON struct {
	TeamID    string `json:"teamID"`
	Name      string `json:"name"`
	APIKey    string `json:"apiKey"`
	IsDefault bool   `json:"isDefault"`
}

// handleTeams answers GET /teams (access token only): the user's one team,
// with the team's API key, as E2B's CLI reads it when it logs in.
func (s *API) handleTeams(w http.ResponseWriter, _ *http.Request) {
	httpjson.Write(w, http.StatusOK, []teamJSON{{TeamID: TeamID, Name: store.TeamNamespace, APIKey: s.opts.APIKey, IsDefault: true}})
}
