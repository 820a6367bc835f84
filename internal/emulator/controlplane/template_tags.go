package controlplane

import (
	"errors"
	"net/http"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

func noTemplateAccess(w http.ResponseWriter, ident string) {
	writeErrorf(w, http.StatusForbidden, "You don't have access to sandbox template '%s'", ident)
}

// handleAssignTags answers POST /templates/tags: the tags move to the build
// the target ("name:tag", default tag when absent) points at.
func (s *API) handleAssignTags(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Target string   `json:"target"` // required: the request validator checked
		Tags   []string `json:"tags"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Tags) == 0 {
		writeError(w, http.StatusBadRequest, "At least one tag is required")
		return
	}
	target, err := parseTemplateName(req.Target)
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
	t, b, err := s.opts.Store.TagTarget(target.identifier(), fromTag)
	switch {
	case errors.Is(err, store.ErrNotFound):
		templateNotFound(w, target.identifier())
		return
	case errors.Is(err, store.ErrNoTaggedBuild):
		writeErrorf(w, http.StatusNotFound, "Template '%s' with tag '%s' not found", req.Target, fromTag)
		return
	case err != nil:
		noTemplateAccess(w, target.identifier())
		return
	}
	tags, err := validateTags(req.Tags)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Invalid tag: %v", err)
		return
	}
	if !s.opts.Store.AssignTags(t.ID, b.ID, tags, time.Now().UTC()) {
		templateNotFound(w, target.identifier())
		return
	}
	httpjson.Write(w, http.StatusCreated, map[string]any{"tags": tags, "buildID": b.ID})
}

// handleDeleteTags answers DELETE /templates/tags; the default tag stays.
func (s *API) handleDeleteTags(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string   `json:"name"` // required: the request validator checked
		Tags []string `json:"tags"`
	}
	if !decodeBody(w, r, &req) {
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
	name, err := parseTemplateName(req.Name)
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
	t, found := s.opts.Store.TemplateByIdentifier(name.identifier())
	if !found {
		templateNotFound(w, name.identifier())
		return
	}
	if !t.TeamOwned() {
		noTemplateAccess(w, name.identifier())
		return
	}
	s.opts.Store.DeleteTags(t.ID, tags)
	w.WriteHeader(http.StatusNoContent)
}

// TemplateTagJSON is E2B's TemplateTag.
type TemplateTagJSON struct {
	Tag       string    `json:"tag"`
	BuildID   string    `json:"buildID"`
	CreatedAt time.Time `json:"createdAt"`
}

// handleListTags answers GET /templates/{id}/tags.
func (s *API) handleListTags(w http.ResponseWriter, ref string) {
	t, found := s.opts.Store.FindTemplate(ref)
	if !found {
		templateNotFound(w, ref)
		return
	}
	if !t.TeamOwned() {
		noTemplateAccess(w, ref)
		return
	}
	out := []TemplateTagJSON{}
	for _, a := range t.Tags {
		out = append(out, TemplateTagJSON{Tag: a.Tag, BuildID: a.BuildID, CreatedAt: a.At})
	}
	httpjson.Write(w, http.StatusOK, out)
}
