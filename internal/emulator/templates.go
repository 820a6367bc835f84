package emulator

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const (
	envdVersion      = "0.6.13"
	clientID         = "6532622b"
	teamNamespace    = "local-team"
	baseTemplateID   = "rki5dems9wqfm4r03t7g"
	baseTemplateName = "base"
	baseBuildID      = "6f0b5a1e-2c1d-4e8f-9a7b-0b5e0b5e0b5e"
	defaultTag       = "default"
	defaultCPUCount  = 2
	defaultMemoryMB  = 512
	defaultDiskMB    = 10240
)

// template is a team or public template; snapshots are templates too.
type template struct {
	id            string
	names         []string // as listed: "base", "local-team/snap1"
	public        bool
	snapshot      bool
	builds        []*templateBuild // oldest first
	tags          []tagAssignment  // oldest first; a tag may be assigned many times
	cpuCount      int32
	memoryMB      int32
	diskSizeMB    int32
	createdAt     time.Time
	updatedAt     time.Time
	lastSpawnedAt *time.Time
	spawnCount    int64
}

// templateBuild is one build of a template. Status, logs and reason change
// while it runs (guarded by Server.mu); once ready its files never change.
type templateBuild struct {
	id         string
	status     string // buildWaiting, buildBuilding, buildReady, buildError
	createdAt  time.Time
	updatedAt  time.Time
	finishedAt *time.Time
	cpuCount   int32
	memoryMB   int32
	filesDir   string   // shared layout: the build's files (home, tmp, root); "" = none
	layers     []string // private roots: the build's layers, newest first
	base       string   // private roots: the base root ("" = the host's, else an image)
	config     buildConfig
	fromImage  string // image name the build started from, if any
	// sourceSandbox is the sandbox a snapshot build was taken from.
	sourceSandbox string
	logs          []buildLogEntryJSON
	reason        *buildReasonJSON
	cancel        func() // stops the build while it runs
}

// The build's logs and failure reason are kept in E2B's wire shapes, as
// the status route answers them.

// buildLogEntryJSON is one of E2B's BuildLogEntry.
type buildLogEntryJSON struct {
	Timestamp time.Time `json:"timestamp"`
	Message   string    `json:"message"`
	Level     string    `json:"level"`
	Step      *string   `json:"step,omitempty"`
}

// buildReasonJSON is E2B's BuildStatusReason.
type buildReasonJSON struct {
	Message    string              `json:"message"`
	Step       *string             `json:"step,omitempty"`
	LogEntries []buildLogEntryJSON `json:"logEntries"`
}

// templateStepJSON is E2B's TemplateStep.
type templateStepJSON struct {
	Type      string   `json:"type"`
	Args      []string `json:"args"`
	FilesHash *string  `json:"filesHash"`
	Force     bool     `json:"force"`
}

// buildConfig is what a build leaves for the sandboxes created from it.
type buildConfig struct {
	envs     map[string]string
	workdir  string // "" = the user's home
	user     string
	startCmd string
	readyCmd string
}

// tagAssignment points a tag at a build.
type tagAssignment struct {
	tag   string
	build *templateBuild
	at    time.Time
}

const (
	buildWaiting  = "waiting"
	buildBuilding = "building"
	buildReady    = "ready"
	buildError    = "error"
)

// TemplateSeed describes a team template for SeedTemplate.
type TemplateSeed struct {
	TemplateID string   `json:"templateID"`
	Names      []string `json:"names"`
	Builds     int      `json:"builds"`
	CPUCount   int32    `json:"cpuCount"`
	MemoryMB   int32    `json:"memoryMB"`
	DiskSizeMB int32    `json:"diskSizeMB"`
}

func (s *Server) seedBaseTemplate() {
	now := time.Now().UTC()
	s.templates[baseTemplateID] = &template{
		id: baseTemplateID, names: []string{baseTemplateName}, public: true,
		cpuCount: defaultCPUCount, memoryMB: defaultMemoryMB, diskSizeMB: defaultDiskMB,
		createdAt: now, updatedAt: now,
	}
	// A fixed build ID keeps step-cache hashes of builds on base valid across restarts.
	s.templates[baseTemplateID].addReadyBuild(now, "", defaultTag).id = baseBuildID
}

// SeedTemplate adds (or replaces) a team template with the given number of
// ready builds (at least one). An empty TemplateID gets a random one.
func (s *Server) SeedTemplate(t TemplateSeed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seedTemplateLocked(t)
}

func (s *Server) seedTemplateLocked(t TemplateSeed) *template {
	if t.TemplateID == "" {
		t.TemplateID = newID("", 20)
	}
	if t.Builds < 1 {
		t.Builds = 1
	}
	tp := &template{
		id: t.TemplateID, names: append([]string(nil), t.Names...),
		cpuCount: t.CPUCount, memoryMB: t.MemoryMB, diskSizeMB: t.DiskSizeMB,
	}
	if tp.cpuCount <= 0 {
		tp.cpuCount = defaultCPUCount
	}
	if tp.memoryMB < 128 {
		tp.memoryMB = defaultMemoryMB
	}
	if tp.diskSizeMB <= 0 {
		tp.diskSizeMB = defaultDiskMB
	}
	now := time.Now().UTC()
	start := now.Add(-time.Duration(t.Builds) * time.Minute)
	for i := 0; i < t.Builds; i++ {
		tp.addReadyBuild(start.Add(time.Duration(i)*time.Minute), "", defaultTag)
	}
	tp.createdAt = start
	tp.updatedAt = tp.builds[len(tp.builds)-1].createdAt
	s.templates[tp.id] = tp
	return tp
}

// sortedTemplatesLocked returns every template, oldest first then by ID.
func (s *Server) sortedTemplatesLocked() []*template {
	out := make([]*template, 0, len(s.templates))
	for _, t := range s.templates {
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

// alias is the template's first name without namespace, as E2B reports it.
func (t *template) alias() string {
	if len(t.names) == 0 {
		return ""
	}
	return strings.TrimPrefix(t.names[0], teamNamespace+"/")
}

func (t *template) aliases() []string {
	out := make([]string, 0, len(t.names))
	for _, n := range t.names {
		out = append(out, strings.TrimPrefix(n, teamNamespace+"/"))
	}
	return out
}

// addReadyBuild records a finished build with the given files and points
// the tag at it (seeded templates: the default tag; snapshots: theirs).
func (t *template) addReadyBuild(at time.Time, filesDir, tag string) *templateBuild {
	b := &templateBuild{
		id: newUUID(), status: buildReady, createdAt: at, updatedAt: at, finishedAt: &at,
		cpuCount: t.cpuCount, memoryMB: t.memoryMB, filesDir: filesDir,
		config: buildConfig{user: "user"},
	}
	t.builds = append(t.builds, b)
	t.tags = append(t.tags, tagAssignment{tag: tag, build: b, at: at})
	return b
}

// latestBuild is the newest ready build, else the newest build.
func (t *template) latestBuild() *templateBuild {
	for i := len(t.builds) - 1; i >= 0; i-- {
		if t.builds[i].status == buildReady {
			return t.builds[i]
		}
	}
	return t.builds[len(t.builds)-1]
}

// removeTemplateFiles deletes the files of every build of a deleted template.
func (s *Server) removeTemplateFiles(t *template) {
	for _, b := range t.builds {
		if b.filesDir == "" {
			continue
		}
		if err := os.RemoveAll(b.filesDir); err != nil {
			s.logf("emulator: remove template files %s: %v", filepath.Base(b.filesDir), err)
		}
	}
}
