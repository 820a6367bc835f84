package store

import (
	"strings"
	"time"
)

// References to templates: an ID, an alias or namespace/alias, optionally
// followed by ":tag" where the tag may also be a build ID. Requests are
// validated by the handlers (E2B's name rule); these only look up.

// templateByIdentifierLocked finds a template by ID, alias or namespace/alias.
func (st *Store) templateByIdentifierLocked(ident string) *template {
	if t, found := st.templates[ident]; found {
		return t
	}
	short := strings.TrimPrefix(ident, TeamNamespace+"/")
	for _, t := range st.sortedTemplatesLocked() {
		for _, n := range t.names {
			if n == ident || n == short || strings.TrimPrefix(n, TeamNamespace+"/") == short {
				return t
			}
		}
	}
	return nil
}

// TemplateByIdentifier finds a template by ID, alias or namespace/alias.
func (st *Store) TemplateByIdentifier(ident string) (Template, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.templateByIdentifierLocked(ident); t != nil {
		return t.view(), true
	}
	return Template{}, false
}

// findTemplateLocked resolves a template ID or name ([namespace/]alias[:tag]);
// a tag must exist on the template (or be one of its build IDs).
func (st *Store) findTemplateLocked(ref string) *template {
	ident, tag, _ := strings.Cut(ref, ":")
	if ident == "" {
		return nil
	}
	t := st.templateByIdentifierLocked(strings.ToLower(strings.TrimSpace(ident)))
	if t == nil {
		return nil
	}
	if tag = strings.ToLower(strings.TrimSpace(tag)); tag != "" && tag != DefaultTag && !t.hasTag(tag) && t.buildByID(tag) == nil {
		return nil
	}
	return t
}

// FindTemplate resolves a template ID or name ([namespace/]alias[:tag]); a
// tag must exist on the template (or be one of its build IDs).
func (st *Store) FindTemplate(ref string) (Template, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t := st.findTemplateLocked(ref); t != nil {
		return t.view(), true
	}
	return Template{}, false
}

// ResolveBuild finds the template and the ready build a reference names:
// the tag (default when absent) or a build ID after the colon; ok is false
// without such a build.
func (st *Store) ResolveBuild(ref string) (Template, Build, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.findTemplateLocked(ref)
	if t == nil {
		return Template{}, Build{}, false
	}
	_, tag, _ := strings.Cut(ref, ":")
	tag = strings.ToLower(strings.TrimSpace(tag))
	if tag == "" {
		tag = DefaultTag
	}
	b := t.buildByID(tag)
	if b == nil {
		b = t.taggedBuild(tag)
	} else if b.Status != BuildReady {
		b = nil
	}
	if b == nil {
		return t.view(), Build{}, false
	}
	return t.view(), b.view(false), true
}

func (t *template) hasTag(tag string) bool {
	for _, a := range t.tags {
		if a.tag == tag {
			return true
		}
	}
	return false
}

func (t *template) buildByID(id string) *build {
	for _, b := range t.builds {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// taggedBuild is the build the tag points at: its newest assignment whose
// build is ready, so a running rebuild never takes a tag away from sandboxes.
func (t *template) taggedBuild(tag string) *build {
	for i := len(t.tags) - 1; i >= 0; i-- {
		if a := t.tags[i]; a.tag == tag && a.build.Status == BuildReady {
			return a.build
		}
	}
	return nil
}

// tagList is one entry per tag: the ready build it points at, else its
// newest assignment.
func (t *template) tagList() []assignment {
	var order []string
	latest := map[string]assignment{}
	for _, a := range t.tags {
		prev, seen := latest[a.tag]
		if !seen {
			order = append(order, a.tag)
		}
		if !seen || a.build.Status == BuildReady || prev.build.Status != BuildReady {
			latest[a.tag] = a
		}
	}
	out := make([]assignment, 0, len(order))
	for _, tag := range order {
		out = append(out, latest[tag])
	}
	return out
}

// TagTarget finds the build a tag operation's target names: the ready build
// the tag (or build ID) fromTag names on the template ident. Errors:
// ErrNotFound (no template), ErrNoTaggedBuild, ErrNotTeamOwned, in that order.
func (st *Store) TagTarget(ident, fromTag string) (Template, Build, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templateByIdentifierLocked(ident)
	if t == nil {
		return Template{}, Build{}, ErrNotFound
	}
	b := t.taggedBuild(fromTag)
	if bb := t.buildByID(fromTag); bb != nil && bb.Status == BuildReady {
		b = bb
	}
	if b == nil {
		return t.view(), Build{}, ErrNoTaggedBuild
	}
	if t.builtin {
		return t.view(), Build{}, ErrNotTeamOwned
	}
	return t.view(), b.view(false), nil
}

// AssignTags points the tags at a build of a template.
func (st *Store) AssignTags(templateID, buildID string, tags []string, at time.Time) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[templateID]
	if t == nil {
		return false
	}
	b := t.buildByID(buildID)
	if b == nil {
		return false
	}
	for _, tag := range tags {
		t.tags = append(t.tags, assignment{tag: tag, build: b, at: at})
	}
	st.saveTemplatesLocked()
	return true
}

// DeleteTags removes every assignment of the tags from a template; its
// builds stay.
func (st *Store) DeleteTags(templateID string, tags []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.templates[templateID]
	if t == nil {
		return
	}
	drop := map[string]bool{}
	for _, tag := range tags {
		drop[tag] = true
	}
	kept := t.tags[:0]
	for _, a := range t.tags {
		if !drop[a.tag] {
			kept = append(kept, a)
		}
	}
	t.tags = kept
	st.saveTemplatesLocked()
}
