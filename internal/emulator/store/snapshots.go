package store

import (
	"slices"
	"time"
)

// Snapshots are templates of their own kind, as E2B's are (envs whose source is
// snapshot_template): each snapshot of a running sandbox adds a ready build, under the tag its
// name gave, to the snapshot template of that name, which the first snapshot of the name
// creates (an unnamed snapshot is a template of its own). E2B lists a snapshot template once,
// as its newest build, and remembers the sandbox it was first taken from (e2b-dev/infra
// queries: ListTeamSnapshotTemplates, CreateSnapshotTemplateEnv).

// Snapshot is a snapshot template as E2B lists it: its names, which carry no tag, and one
// ready build with the tag it was given.
type Snapshot struct {
	TemplateID string
	Names      []string
	Tag        string
	BuildID    string
	// SourceSandbox is the sandbox the template was first taken from.
	SourceSandbox string
	CreatedAt     time.Time // the template's
}

// SnapshotFilter selects snapshot templates; a zero field selects all.
type SnapshotFilter struct {
	SandboxID string // the sandbox a template was first taken from
	Template  string // a template ID, alias or namespace/alias
	// Tag lists a template as its newest build under this tag (and leaves out one with no
	// such build) instead of its newest build under any tag.
	Tag string
}

// SnapshotByName finds the snapshot template named alias ("" for none): ok is false when the
// name belongs to a template that is not a snapshot.
func (st *Store) SnapshotByName(alias string) (t Template, found, ok bool) {
	if alias == "" {
		return Template{}, false, true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	existing := st.templateByIdentifierLocked(TeamNamespace + "/" + alias)
	switch {
	case existing == nil:
		return Template{}, false, true
	case !existing.snapshot:
		return Template{}, false, false
	}
	return existing.view(), true, true
}

// AddSnapshot adds a ready build with the tag to the snapshot template tmpl, creating it from
// tmpl (ID, names, resources, creation time) when it is not stored; the build takes files,
// layers, base, config and source sandbox from b. It returns the new snapshot.
func (st *Store) AddSnapshot(tmpl Template, tag, buildID string, b Build, now time.Time) Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[tmpl.ID]
	if t == nil {
		t = &template{
			id: tmpl.ID, names: slices.Clone(tmpl.Names), snapshot: true,
			cpuCount: tmpl.CPUCount, memoryMB: tmpl.MemoryMB, diskSizeMB: tmpl.DiskSizeMB,
			createdAt: tmpl.CreatedAt,
		}
		st.templates[t.id] = t
	}
	nb := t.addReadyBuild(buildID, now, tag)
	nb.FilesDir, nb.Layers, nb.Base, nb.Config, nb.SourceSandbox = b.FilesDir, slices.Clone(b.Layers), b.Base, b.Config.Clone(), b.SourceSandbox
	t.updatedAt = now
	st.saveTemplatesLocked()
	return t.snapshotAt(t.tags[len(t.tags)-1])
}

// Snapshots lists the snapshot templates f selects, each as its newest ready build (under
// f.Tag when set), newest template first (E2B's order: creation time, then ID, descending).
// A template f.Template does not name, or that has no such build, is not listed.
func (st *Store) Snapshots(f SnapshotFilter) []Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	var only *template
	if f.Template != "" {
		if only = st.templateByIdentifierLocked(f.Template); only == nil {
			return nil
		}
	}
	var out []Snapshot
	for _, t := range st.sortedTemplatesLocked() {
		if !t.snapshot || (only != nil && t != only) || (f.SandboxID != "" && t.firstSource() != f.SandboxID) {
			continue
		}
		if a, ok := t.newestAssignment(f.Tag); ok {
			out = append(out, t.snapshotAt(a))
		}
	}
	slices.Reverse(out)
	return out
}

// firstSource is the sandbox the snapshot template was first taken from.
func (t *template) firstSource() string {
	if len(t.builds) == 0 {
		return ""
	}
	return t.builds[0].SourceSandbox
}

// newestAssignment is the newest assignment of a ready build, of the tag when one is given.
func (t *template) newestAssignment(tag string) (assignment, bool) {
	for i := len(t.tags) - 1; i >= 0; i-- {
		if a := t.tags[i]; a.build.Status == BuildReady && (tag == "" || a.tag == tag) {
			return a, true
		}
	}
	return assignment{}, false
}

// snapshotAt is the snapshot template as listed at the assignment.
func (t *template) snapshotAt(a assignment) Snapshot {
	return Snapshot{
		TemplateID: t.id, Names: slices.Clone(t.names), Tag: a.tag, BuildID: a.build.ID,
		SourceSandbox: t.firstSource(), CreatedAt: t.createdAt,
	}
}
