package emulator

import (
	"net/http"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// teamOwned tells the team's templates from E2B's public base template.
func (t *template) teamOwned() bool { return t.id != baseTemplateID }

func noTemplateAccess(w http.ResponseWriter, ident string) {
	writeErrorf(w, http.StatusForbidden, "You don't have access to sandbox template '%s'", ident)
}

// handleAssignTags answers POST /templates/tags: the tags move to the build
// the target ("name:tag", default tag when absent) points at.
func (s *Server) handleAssignTags(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Target *string  `json:"target"`
		Tags   []string `json:"tags"`
	}
	if err := httpjson.Decode(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	if req.Target == nil {
		validationError(w, `request body has an error: doesn't match schema: Error at "/target": property "target" is missing`)
		return
	}
	if len(req.Tags) == 0 {
		writeError(w, http.StatusBadRequest, "At least one tag is required")
		return
	}
	target, err := parseTemplateName(*req.Target)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid target template format: %v", err)
		return
	}
	if err := namespaceError(target); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	fromTag := target.tag
	if fromTag == "" {
		fromTag = defaultTag
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.templateByIdentifierLocked(target.identifier())
	if t == nil {
		templateNotFound(w, target.identifier())
		return
	}
	b := t.taggedBuild(fromTag)
	if bb := t.buildByID(fromTag); bb != nil && bb.status == buildReady {
		b = bb
	}
	if b == nil {
		writeErrorf(w, http.StatusNotFound, "Template '%s' with tag '%s' not found", *req.Target, fromTag)
		return
	}
	if !t.teamOwned() {
		noTemplateAccess(w, target.identifier())
		return
	}
	tags, err := validateTags(req.Tags)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid tag: %v", err)
		return
	}
	now := time.Now().UTC()
	for _, tag := range tags {
		t.tags = append(t.tags, tagAssignment{tag: tag, build: b, at: now})
	}
	s.saveStateLocked()
	httpjson.Write(w, http.StatusCreated, map[string]any{"tags": tags, "buildID": b.id})
}

// handleDeleteTags answers DELETE /templates/tags; the default tag stays.
func (s *Server) handleDeleteTags(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string  `json:"name"`
		Tags []string `json:"tags"`
	}
	if err := httpjson.Decode(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	if req.Name == nil {
		validationError(w, `request body has an error: doesn't match schema: Error at "/name": property "name" is missing`)
		return
	}
	tags, err := validateTags(req.Tags)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid tag: %v", err)
		return
	}
	if len(tags) == 0 {
		writeError(w, http.StatusBadRequest, "At least one tag is required")
		return
	}
	for _, tag := range tags {
		if tag == defaultTag {
			writeErrorf(w, http.StatusBadRequest, "Cannot delete the '%s' tag", defaultTag)
			return
		}
	}
	name, err := parseTemplateName(*req.Name)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid template name format: %v", err)
		return
	}
	if err := namespaceError(name); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if name.tag != "" {
		writeError(w, http.StatusBadRequest, "Template name should not contain a tag, use the 'tags' field instead")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.templateByIdentifierLocked(name.identifier())
	if t == nil {
		templateNotFound(w, name.identifier())
		return
	}
	if !t.teamOwned() {
		noTemplateAccess(w, name.identifier())
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
	s.saveStateLocked()
	w.WriteHeader(http.StatusNoContent)
}

type templateTagJSON struct {
	Tag       string    `json:"tag"`
	BuildID   string    `json:"buildID"`
	CreatedAt time.Time `json:"createdAt"`
}

// handleListTags answers GET /templates/{id}/tags.
func (s *Server) handleListTags(w http.ResponseWriter, ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.findTemplateLocked(ref)
	if t == nil {
		templateNotFound(w, ref)
		return
	}
	if !t.teamOwned() {
		noTemplateAccess(w, ref)
		return
	}
	out := []templateTagJSON{}
	for _, a := range t.tagList() {
		out = append(out, templateTagJSON{Tag: a.tag, BuildID: a.build.id, CreatedAt: a.at})
	}
	httpjson.Write(w, http.StatusOK, out)
}

// handleUpdateTemplate answers PATCH /v2/templates/{id} (names back) and the
// deprecated PATCH /templates/{id} (no body).
func (s *Server) handleUpdateTemplate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Public *bool `json:"public"`
	}
	if err := httpjson.Decode(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	ref := r.PathValue("id")
	s.mu.Lock()
	t := s.findTemplateLocked(ref)
	if t == nil {
		s.mu.Unlock()
		templateNotFound(w, ref)
		return
	}
	if !t.teamOwned() {
		s.mu.Unlock()
		noTemplateAccess(w, ref)
		return
	}
	if req.Public != nil {
		t.public = *req.Public
		t.updatedAt = time.Now().UTC()
		s.saveStateLocked()
	}
	names := append([]string{}, t.names...)
	s.mu.Unlock()
	if r.Pattern == "PATCH /templates/{id}" {
		w.WriteHeader(http.StatusOK)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"names": names})
}
