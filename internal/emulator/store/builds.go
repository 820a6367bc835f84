package store

import (
	"slices"
	"time"
)

// RequestBuild registers a waiting build (buildID) carrying the tags on the
// team template named alias, creating it as templateID when there is none;
// cpu and memoryMB, when given, become the template's. ErrAliasTaken: the
// name belongs to the base template or a snapshot, or is another template's ID.
func (st *Store) RequestBuild(alias, templateID, buildID string, cpu, memoryMB *int32, tags []string, now time.Time) (Template, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	name := TeamNamespace + "/" + alias
	t := st.templateByIdentifierLocked(name)
	if t != nil && (t.builtin || t.snapshot) {
		return Template{}, ErrAliasTaken
	}
	if _, isID := st.templates[alias]; t == nil && isID {
		return Template{}, ErrAliasTaken
	}
	if t == nil {
		t = &template{
			id: templateID, names: []string{name},
			cpuCount: DefaultCPUCount, memoryMB: DefaultMemoryMB, diskSizeMB: DefaultDiskMB,
			createdAt: now,
		}
		st.templates[t.id] = t
	}
	st.addWaitingBuildLocked(t, buildID, cpu, memoryMB, tags, now)
	return t.view(), nil
}

// addWaitingBuildLocked adds a waiting build carrying the tags to t, as every
// build request does (current and deprecated routes alike); cpu and memoryMB,
// when given, become the template's first, so the build records them.
func (st *Store) addWaitingBuildLocked(t *template, buildID string, cpu, memoryMB *int32, tags []string, now time.Time) {
	if cpu != nil {
		t.cpuCount = *cpu
	}
	if memoryMB != nil {
		t.memoryMB = *memoryMB
	}
	b := &build{Build: Build{
		ID: buildID, Status: BuildWaiting, CreatedAt: now, UpdatedAt: now,
		CPUCount: t.cpuCount, MemoryMB: t.memoryMB,
	}}
	t.builds = append(t.builds, b)
	for _, tag := range tags {
		t.tags = append(t.tags, assignment{tag: tag, build: b, at: now})
	}
	t.updatedAt = now
	st.saveTemplatesLocked()
}

// BuildByID finds a build, with its log, of the template templateID (an
// exact ID, else a reference as FindTemplate takes).
func (st *Store) BuildByID(templateID, buildID string) (Template, Build, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[templateID]
	if t == nil {
		t = st.findTemplateLocked(templateID)
	}
	if t == nil {
		return Template{}, Build{}, false
	}
	b := t.buildByID(buildID)
	if b == nil {
		return Template{}, Build{}, false
	}
	return t.view(), b.view(true), true
}

// StartBuild marks a waiting build building, with cancel to stop it, and
// cancels an older build of the template still running. Errors:
// ErrNotFound, ErrNotWaiting.
func (st *Store) StartBuild(templateID, buildID string, cancel func()) (Template, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[templateID]
	var b *build
	if t != nil {
		b = t.buildByID(buildID)
	}
	if b == nil {
		return Template{}, ErrNotFound
	}
	if b.Status != BuildWaiting {
		return Template{}, ErrNotWaiting
	}
	for _, other := range t.builds {
		if other != b && other.cancel != nil {
			other.cancel()
		}
	}
	b.cancel = cancel
	b.Status = BuildBuilding
	b.UpdatedAt = time.Now().UTC()
	return t.view(), nil
}

func (st *Store) buildLocked(templateID, buildID string) (*template, *build) {
	t := st.templates[templateID]
	if t == nil {
		return nil, nil
	}
	return t, t.buildByID(buildID)
}

// AppendBuildLog adds an entry to a build's log.
func (st *Store) AppendBuildLog(templateID, buildID string, e BuildLogEntry) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, b := st.buildLocked(templateID, buildID); b != nil {
		b.Logs = append(b.Logs, e)
		b.UpdatedAt = e.Timestamp
	}
}

// SetBuildImage records the image a build starts from.
func (st *Store) SetBuildImage(templateID, buildID, image string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, b := st.buildLocked(templateID, buildID); b != nil {
		b.FromImage = image
	}
}

// BuildResult is how a build ended: Reason set for a failure, else the
// files and config of the ready build.
type BuildResult struct {
	Reason   *BuildReason
	FilesDir string
	Layers   []string
	Base     string
	Config   BuildConfig
	Last     BuildLogEntry // the log's last line
}

// FinishBuild ends a running build; a ready build also updates its
// template. It reports whether the build still exists.
func (st *Store) FinishBuild(templateID, buildID string, r BuildResult, now time.Time) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	t, b := st.buildLocked(templateID, buildID)
	if b == nil {
		return false
	}
	defer st.saveTemplatesLocked()
	b.cancel = nil
	b.FinishedAt, b.UpdatedAt = &now, now
	if r.Reason != nil {
		b.Status, b.Reason = BuildError, r.Reason
	} else {
		b.FilesDir, b.Config, b.Status = r.FilesDir, r.Config.Clone(), BuildReady
		b.Layers, b.Base = slices.Clone(r.Layers), r.Base
		t.updatedAt = now
	}
	b.Logs = append(b.Logs, r.Last)
	return true
}

// Layer is one build step's result in the step cache: its files and the
// config after it.
type Layer struct {
	Dir    string      `json:"dir,omitempty"`    // shared layout: a copy of the whole build sandbox
	Layers []string    `json:"layers,omitempty"` // private roots: the layers after the step
	Base   string      `json:"base,omitempty"`
	Config BuildConfig `json:"config"`
}

// CachedLayer looks a step hash up in the step cache.
func (st *Store) CachedLayer(hash string) (Layer, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c, ok := st.stepCache[hash]
	c.Layers, c.Config = slices.Clone(c.Layers), c.Config.Clone()
	return c, ok
}

// StoreLayer keeps a step's result unless the hash has one already (the
// first writer wins); it reports whether it kept this one.
func (st *Store) StoreLayer(hash string, l Layer) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.stepCache[hash]; ok {
		return false
	}
	l.Layers, l.Config = slices.Clone(l.Layers), l.Config.Clone()
	st.stepCache[hash] = l
	return true
}
