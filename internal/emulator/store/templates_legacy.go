package store

import (
	"slices"
	"time"
)

// RequestLegacyBuild registers a waiting build as E2B's deprecated
// Dockerfile routes do: on a new team template templateID (create; POST
// /templates) or on the existing team template templateID (POST
// /templates/{templateID}). alias, when not "", names the template (a new
// template without one has no name, as on E2B); tags are the build's; cpu and
// memoryMB, when given, become the template's. Errors: ErrNotFound (no such
// template to rebuild), ErrNotTeamOwned (one of E2B's own), ErrAliasTaken
// (alias names another template, or is another template's ID).
func (st *Store) RequestLegacyBuild(templateID string, create bool, alias, buildID string, cpu, memoryMB *int32, tags []string, now time.Time) (Template, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[templateID]
	switch {
	case create && t != nil:
		return Template{}, ErrAliasTaken
	case !create && t == nil:
		return Template{}, ErrNotFound
	case !create && t.builtin:
		return Template{}, ErrNotTeamOwned
	}
	name := ""
	if alias != "" {
		name = TeamNamespace + "/" + alias
		if other := st.templateByIdentifierLocked(name); other != nil && other != t {
			return Template{}, ErrAliasTaken
		}
		if other, isID := st.templates[alias]; isID && other != t {
			return Template{}, ErrAliasTaken
		}
	}
	if t == nil {
		t = &template{
			id: templateID, cpuCount: DefaultCPUCount, memoryMB: DefaultMemoryMB, diskSizeMB: DefaultDiskMB,
			createdAt: now,
		}
		st.templates[t.id] = t
	}
	if name != "" && !slices.Contains(t.names, name) {
		t.names = append(t.names, name)
	}
	st.addWaitingBuildLocked(t, buildID, cpu, memoryMB, tags, now)
	return t.view(), nil
}
