package emulator

import (
	"net/http"
	"regexp"
	"strings"
	"time"
)

// tagAssignment points a tag of a template at one of its builds. A tag may
// be assigned again; the newest assignment wins.
type tagAssignment struct {
	tag     string
	buildID string
	at      time.Time
}

type templateTagJSON struct {
	Tag       string    `json:"tag"`
	BuildID   string    `json:"buildID"`
	CreatedAt time.Time `json:"createdAt"`
}

// E2B's tag rule: lower-case letters, digits, '.', '_' and '-', and not a UUID
// (a UUID after the colon names a build).
var (
	tagPattern  = regexp.MustCompile(`^[a-z0-9._-]+$`)
	uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

func validTag(tag string) bool { return tagPattern.MatchString(tag) && !uuidPattern.MatchString(tag) }

func (t *template) build(id string) (templateBuild, bool) {
	for _, b := range t.builds {
		if b.id == id {
			return b, true
		}
	}
	return templateBuild{}, false
}

// taggedBuild is the build the tag points at now.
func (t *template) taggedBuild(tag string) (templateBuild, bool) {
	for i := len(t.tags) - 1; i >= 0; i-- {
		if t.tags[i].tag == tag {
			return t.build(t.tags[i].buildID)
		}
	}
	return templateBuild{}, false
}

func (t *template) hasTagOrBuild(tag string) bool {
	if _, ok := t.taggedBuild(tag); ok {
		return true
	}
	_, ok := t.build(tag)
	return ok
}

// filesFor is the files a sandbox started from ref gets: those of the build
// its tag or build ID names, else the template's.
func (t *template) filesFor(ref string) string {
	if _, tag := splitTag(ref); tag != "" {
		b, ok := t.taggedBuild(tag)
		if !ok {
			b, ok = t.build(tag)
		}
		if ok && b.filesDir != "" {
			return b.filesDir
		}
	}
	return t.filesDir
}

// tagList is one entry per tag, in the order tags were first assigned.
func (t *template) tagList() []tagAssignment {
	var out []tagAssignment
	index := map[string]int{}
	for _, a := range t.tags {
		if i, seen := index[a.tag]; seen {
			out[i] = a
			continue
		}
		index[a.tag] = len(out)
		out = append(out, a)
	}
	return out
}

// snapshotEntries lists a snapshot template as E2B does: one entry per tag,
// "<name or ID>:<tag>", optionally only the builds taken from one sandbox.
func (t *template) snapshotEntries(fromSandbox string) []snapshotInfo {
	base := t.id
	if len(t.names) > 0 {
		base = t.names[0]
	}
	var out []snapshotInfo
	for _, a := range t.tagList() {
		b, _ := t.build(a.buildID)
		if fromSandbox != "" && b.sourceSandbox != fromSandbox {
			continue
		}
		names := make([]string, 0, len(t.names))
		for _, n := range t.names {
			names = append(names, n+":"+a.tag)
		}
		out = append(out, snapshotInfo{SnapshotID: base + ":" + a.tag, Names: names})
	}
	return out
}

// handleTemplateTags lists a template's tags (GET /templates/{id}/tags).
func (s *Server) handleTemplateTags(w http.ResponseWriter, ref string) {
	s.mu.Lock()
	t := s.templateByNameLocked(ref)
	if t == nil {
		s.mu.Unlock()
		templateNotFound(w, ref)
		return
	}
	out := []templateTagJSON{}
	for _, a := range t.tagList() {
		out = append(out, templateTagJSON{Tag: a.tag, BuildID: a.buildID, CreatedAt: a.at})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// handleDeleteTags removes tags from a template (DELETE /templates/tags); the
// builds stay. E2B never deletes the default tag.
func (s *Server) handleDeleteTags(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string  `json:"name"`
		Tags []string `json:"tags"`
	}
	if err := decodeBody(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	if req.Name == nil || req.Tags == nil {
		validationError(w, `request body has an error: doesn't match schema: property "name" and "tags" are required`)
		return
	}
	if strings.Contains(*req.Name, ":") {
		writeError(w, http.StatusBadRequest, "Template name should not contain a tag, use the 'tags' field instead")
		return
	}
	if len(req.Tags) == 0 {
		writeError(w, http.StatusBadRequest, "At least one tag is required")
		return
	}
	drop := map[string]bool{}
	for _, tag := range req.Tags {
		tag = strings.ToLower(strings.TrimSpace(tag))
		if !validTag(tag) {
			writeErrorf(w, http.StatusBadRequest, "Invalid tag: invalid tag '%s'", tag)
			return
		}
		if tag == defaultTag {
			writeErrorf(w, http.StatusBadRequest, "Cannot delete the '%s' tag", defaultTag)
			return
		}
		drop[tag] = true
	}
	s.mu.Lock()
	t := s.templateByNameLocked(*req.Name)
	if t == nil || t.public {
		s.mu.Unlock()
		writeErrorf(w, http.StatusNotFound, "Template '%s' not found", *req.Name)
		return
	}
	kept := t.tags[:0]
	for _, a := range t.tags {
		if !drop[a.tag] {
			kept = append(kept, a)
		}
	}
	t.tags = kept
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
