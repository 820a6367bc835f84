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
	sourceSandbox string
	builds        []templateBuild // oldest first
	tags          []tagAssignment // oldest first; snapshots only
	cpuCount      int32
	memoryMB      int32
	diskSizeMB    int32
	filesDir      string // snapshot contents (home, tmp, root); "" = empty filesystem
	createdAt     time.Time
	updatedAt     time.Time
	lastSpawnedAt *time.Time
	spawnCount    int64
}

type templateBuild struct {
	id            string
	createdAt     time.Time
	filesDir      string // files of a build reached by its own tag ("" = the template's)
	sourceSandbox string // the sandbox a snapshot build was taken from
}

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
		builds:   []templateBuild{{id: newUUID(), createdAt: now}},
		cpuCount: defaultCPUCount, memoryMB: defaultMemoryMB, diskSizeMB: defaultDiskMB,
		createdAt: now, updatedAt: now,
	}
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
		tp.builds = append(tp.builds, templateBuild{id: newUUID(), createdAt: start.Add(time.Duration(i) * time.Minute)})
	}
	tp.createdAt = start
	tp.updatedAt = tp.builds[len(tp.builds)-1].createdAt
	s.templates[tp.id] = tp
	return tp
}

// splitTag splits "name:tag"; "" and "default" are the default tag.
func splitTag(ref string) (name, tag string) {
	name, tag, _ = strings.Cut(ref, ":")
	if tag == defaultTag {
		tag = ""
	}
	return name, tag
}

// findTemplateLocked resolves a template ID or name ([namespace/]alias[:tag]);
// a tag other than the default must be one the template has, or a build ID.
func (s *Server) findTemplateLocked(ref string) *template {
	name, tag := splitTag(ref)
	t := s.templateByNameLocked(name)
	if t == nil || (tag != "" && !t.hasTagOrBuild(tag)) {
		return nil
	}
	return t
}

// templateByNameLocked finds a template by ID or name, ignoring any tag.
func (s *Server) templateByNameLocked(name string) *template {
	if name == "" {
		return nil
	}
	if t, found := s.templates[name]; found {
		return t
	}
	short := strings.TrimPrefix(name, teamNamespace+"/")
	for _, t := range s.sortedTemplatesLocked() {
		for _, n := range t.names {
			if n == name || n == short || strings.TrimPrefix(n, teamNamespace+"/") == short {
				return t
			}
		}
	}
	return nil
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

func (t *template) latestBuild() templateBuild { return t.builds[len(t.builds)-1] }

func (s *Server) removeTemplateFiles(t *template) {
	dirs := []string{t.filesDir}
	for _, b := range t.builds {
		dirs = append(dirs, b.filesDir)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			s.logf("emulator: remove template files %s: %v", filepath.Base(d), err)
		}
	}
}
