package store

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Templates and their builds. A template is a team or public template;
// snapshots are templates too. Builds change (status, logs, reason) only
// through the operations below while they run; a ready build never changes.

const (
	TeamNamespace    = "local-team"
	BaseTemplateID   = "rki5dems9wqfm4r03t7g"
	BaseTemplateName = "base"
	// BaseBuildID is fixed so step-cache hashes of builds on base stay valid
	// across restarts.
	BaseBuildID     = "6f0b5a1e-2c1d-4e8f-9a7b-0b5e0b5e0b5e"
	DefaultTag      = "default"
	DefaultCPUCount = 2
	DefaultMemoryMB = 512
	DefaultDiskMB   = 10240
)

// Build statuses.
const (
	BuildWaiting  = "waiting"
	BuildBuilding = "building"
	BuildReady    = "ready"
	BuildError    = "error"
)

// Errors of the build and tag operations.
var (
	ErrNotFound      = errors.New("not found")
	ErrAliasTaken    = errors.New("alias taken")
	ErrNotWaiting    = errors.New("build is not in waiting state")
	ErrNotTeamOwned  = errors.New("not the team's template")
	ErrNoTaggedBuild = errors.New("no ready build with that tag")
)

// BuildConfig is what a build leaves for the sandboxes created from it
// (JSON: its shape in the saved state).
type BuildConfig struct {
	Envs     map[string]string `json:"envs,omitempty"`
	Workdir  string            `json:"workdir,omitempty"` // "" = the user's home
	User     string            `json:"user,omitempty"`
	StartCmd string            `json:"startCmd,omitempty"`
	ReadyCmd string            `json:"readyCmd,omitempty"`
}

// Clone copies the config, its env map included.
func (c BuildConfig) Clone() BuildConfig {
	c.Envs = maps.Clone(c.Envs)
	return c
}

// BuildLogEntry is one of E2B's BuildLogEntry (logs are kept in E2B's wire
// shapes, as the status route answers them).
type BuildLogEntry struct {
	Timestamp time.Time `json:"timestamp"`
	Message   string    `json:"message"`
	Level     string    `json:"level"`
	Step      *string   `json:"step,omitempty"`
}

// BuildReason is E2B's BuildStatusReason.
type BuildReason struct {
	Message    string          `json:"message"`
	Step       *string         `json:"step,omitempty"`
	LogEntries []BuildLogEntry `json:"logEntries"`
}

// Build is one build of a template, as a copy.
type Build struct {
	ID         string
	Status     string // BuildWaiting, BuildBuilding, BuildReady, BuildError
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt *time.Time
	CPUCount   int32
	MemoryMB   int32
	FilesDir   string   // shared layout: the build's files (home, tmp, root); "" = none
	Layers     []string // private roots: the build's layers, newest first
	Base       string   // private roots: the base root ("" = the host's, else an image)
	Config     BuildConfig
	FromImage  string // image name the build started from, if any
	// SourceSandbox is the sandbox a snapshot build was taken from.
	SourceSandbox string
	Logs          []BuildLogEntry // only in the answers of BuildByID
	Reason        *BuildReason
}

type build struct {
	Build
	cancel func() // stops the build while it runs
}

// view copies the build; withLogs adds its log.
func (b *build) view(withLogs bool) Build {
	out := b.Build
	out.Layers = slices.Clone(b.Layers)
	out.Config = b.Config.Clone()
	out.Logs = nil
	if withLogs {
		out.Logs = slices.Clone(b.Logs)
	}
	if b.Reason != nil {
		r := *b.Reason
		out.Reason = &r
	}
	return out
}

// Tag is a tag's assignment to a build.
type Tag struct {
	Tag     string
	BuildID string
	At      time.Time
}

type assignment struct {
	tag   string
	build *build
	at    time.Time
}

type template struct {
	id            string
	names         []string // as listed: "base", "local-team/snap1"
	public        bool
	builtin       bool // one of E2B's own (base, mcp-gateway): not the team's to change
	snapshot      bool
	builds        []*build     // oldest first
	tags          []assignment // oldest first; a tag may be assigned many times
	cpuCount      int32
	memoryMB      int32
	diskSizeMB    int32
	createdAt     time.Time
	updatedAt     time.Time
	lastSpawnedAt *time.Time
	spawnCount    int64
}

// Template is a template as a copy: its builds without their logs, oldest
// first, and one entry per tag (tagList).
type Template struct {
	ID            string
	Names         []string
	Public        bool
	Builtin       bool
	Snapshot      bool
	CPUCount      int32
	MemoryMB      int32
	DiskSizeMB    int32
	CreatedAt     time.Time
	UpdatedAt     time.Time
	LastSpawnedAt *time.Time
	SpawnCount    int64
	Builds        []Build
	Tags          []Tag
}

func (t *template) view() Template {
	out := Template{
		ID: t.id, Names: slices.Clone(t.names), Public: t.public, Builtin: t.builtin, Snapshot: t.snapshot,
		CPUCount: t.cpuCount, MemoryMB: t.memoryMB, DiskSizeMB: t.diskSizeMB,
		CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, SpawnCount: t.spawnCount,
	}
	if t.lastSpawnedAt != nil {
		at := *t.lastSpawnedAt
		out.LastSpawnedAt = &at
	}
	for _, b := range t.builds {
		out.Builds = append(out.Builds, b.view(false))
	}
	for _, a := range t.tagList() {
		out.Tags = append(out.Tags, Tag{Tag: a.tag, BuildID: a.build.ID, At: a.at})
	}
	return out
}

// TeamOwned tells the team's templates from E2B's own public ones.
func (t Template) TeamOwned() bool { return !t.Builtin }

// Alias is the template's first name without namespace, as E2B reports it.
func (t Template) Alias() string {
	if len(t.Names) == 0 {
		return ""
	}
	return strings.TrimPrefix(t.Names[0], TeamNamespace+"/")
}

// Aliases are the names without namespace.
func (t Template) Aliases() []string {
	out := make([]string, 0, len(t.Names))
	for _, n := range t.Names {
		out = append(out, strings.TrimPrefix(n, TeamNamespace+"/"))
	}
	return out
}

// LatestBuild is the newest ready build, else the newest build.
func (t Template) LatestBuild() Build {
	for i := len(t.Builds) - 1; i >= 0; i-- {
		if t.Builds[i].Status == BuildReady {
			return t.Builds[i]
		}
	}
	return t.Builds[len(t.Builds)-1]
}

// Template finds a template by its exact ID.
func (st *Store) Template(id string) (Template, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.templates[id]; t != nil {
		return t.view(), true
	}
	return Template{}, false
}

// Templates lists every template, oldest first then by ID.
func (st *Store) Templates() []Template {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Template
	for _, t := range st.sortedTemplatesLocked() {
		out = append(out, t.view())
	}
	return out
}

func (st *Store) sortedTemplatesLocked() []*template {
	out := make([]*template, 0, len(st.templates))
	for _, t := range st.templates {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].createdAt.Equal(out[j].createdAt) {
			return out[i].createdAt.Before(out[j].createdAt)
		}
		return out[i].id < out[j].id
	})
	return out
}

// addReadyBuild records a finished build and points the tag at it.
func (t *template) addReadyBuild(id string, at time.Time, tag string) *build {
	b := &build{Build: Build{
		ID: id, Status: BuildReady, CreatedAt: at, UpdatedAt: at, FinishedAt: &at,
		CPUCount: t.cpuCount, MemoryMB: t.memoryMB, Config: BuildConfig{User: "user"},
	}}
	t.builds = append(t.builds, b)
	t.tags = append(t.tags, assignment{tag: tag, build: b, at: at})
	return b
}

// SeedBase adds E2B's public base template with its one build.
func (st *Store) SeedBase(now time.Time) {
	st.SeedBuiltin(BaseTemplateID, BaseTemplateName, BaseBuildID, now, "", nil)
}

// SeedBuiltin adds one of E2B's own public templates with its one build, whose files are
// filesDir (shared layout) or layers (private roots) over base's: listed with no team's
// templates, never saved, and not the team's to change.
func (st *Store) SeedBuiltin(id, name, buildID string, now time.Time, filesDir string, layers []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := &template{
		id: id, names: []string{name}, public: true, builtin: true,
		cpuCount: DefaultCPUCount, memoryMB: DefaultMemoryMB, diskSizeMB: DefaultDiskMB,
		createdAt: now, updatedAt: now,
	}
	b := t.addReadyBuild(buildID, now, DefaultTag)
	b.FilesDir, b.Layers = filesDir, slices.Clone(layers)
	st.templates[t.id] = t
}

// SeedTemplate adds (or replaces) a team template with ready builds, one
// per ID, a minute apart and ending now; resources out of range get the
// defaults.
func (st *Store) SeedTemplate(id string, names []string, buildIDs []string, cpu, memoryMB, diskMB int32, now time.Time) Template {
	t := &template{id: id, names: slices.Clone(names), cpuCount: cpu, memoryMB: memoryMB, diskSizeMB: diskMB}
	if t.cpuCount <= 0 {
		t.cpuCount = DefaultCPUCount
	}
	if t.memoryMB < 128 {
		t.memoryMB = DefaultMemoryMB
	}
	if t.diskSizeMB <= 0 {
		t.diskSizeMB = DefaultDiskMB
	}
	start := now.Add(-time.Duration(len(buildIDs)) * time.Minute)
	for i, bid := range buildIDs {
		t.addReadyBuild(bid, start.Add(time.Duration(i)*time.Minute), DefaultTag)
	}
	t.createdAt = start
	t.updatedAt = t.builds[len(t.builds)-1].CreatedAt
	st.mu.Lock()
	defer st.mu.Unlock()
	st.templates[t.id] = t
	return t.view()
}

// CountSpawn counts a sandbox started from the template.
func (st *Store) CountSpawn(id string, at time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.templates[id]; t != nil {
		t.spawnCount++
		t.lastSpawnedAt = &at
	}
}

// SetPublic changes a team template's visibility (public nil: no change)
// and returns it; ErrNotFound, ErrNotTeamOwned.
func (st *Store) SetPublic(id string, public *bool) (Template, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[id]
	if t == nil {
		return Template{}, ErrNotFound
	}
	if t.builtin {
		return Template{}, ErrNotTeamOwned
	}
	if public != nil {
		t.public = *public
		t.updatedAt = time.Now().UTC()
		st.saveTemplatesLocked()
	}
	return t.view(), nil
}

// DeleteTemplate removes a template, stops its running builds and returns
// it with its builds (whose files the caller removes).
func (st *Store) DeleteTemplate(id string) (Template, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[id]
	if t == nil {
		return Template{}, false
	}
	delete(st.templates, id)
	for _, b := range t.builds {
		if b.cancel != nil {
			b.cancel()
		}
	}
	st.saveTemplatesLocked()
	return t.view(), true
}

// CancelBuilds stops every running build.
func (st *Store) CancelBuilds() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, t := range st.templates {
		for _, b := range t.builds {
			if b.cancel != nil {
				b.cancel()
			}
		}
	}
}
