package emulator

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// secret is a team secret: its versions' values are only ever used by the
// egress proxy, never returned.
type secret struct {
	id        string
	name      string // canonical (lower case)
	versions  []string
	metadata  map[string]string
	createdAt time.Time
	updatedAt time.Time
}

// secretJSON is E2B's Secret schema: metadata only.
type secretJSON struct {
	SecretID       string            `json:"secretID"`
	Name           string            `json:"name"`
	CurrentVersion int64             `json:"currentVersion"`
	Metadata       map[string]string `json:"metadata"`
	CreatedAt      time.Time         `json:"createdAt"`
	UpdatedAt      time.Time         `json:"updatedAt"`
}

func (sc *secret) json() secretJSON {
	return secretJSON{SecretID: sc.id, Name: sc.name, CurrentVersion: int64(len(sc.versions)),
		Metadata: copyMap(sc.metadata), CreatedAt: sc.createdAt, UpdatedAt: sc.updatedAt}
}

var secretNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// Spec limits of SecretMetadata.
const (
	secretMetadataEntries  = 32
	secretMetadataKeyBytes = 128
	secretMetadataValBytes = 1024
	secretMetadataBytes    = 8192
	maxSecretValueBytes    = 8192 // one HTTP header value
)

func checkSecretMetadata(m map[string]string) string {
	if len(m) > secretMetadataEntries {
		return fmt.Sprintf("metadata has %d entries; at most %d are allowed", len(m), secretMetadataEntries)
	}
	total := 0
	for k, v := range m {
		if len(k) > secretMetadataKeyBytes {
			return fmt.Sprintf("metadata key %q is longer than %d bytes", k, secretMetadataKeyBytes)
		}
		if len(v) > secretMetadataValBytes {
			return fmt.Sprintf("metadata value of %q is longer than %d bytes", k, secretMetadataValBytes)
		}
		total += len(k) + len(v)
	}
	if total > secretMetadataBytes {
		return fmt.Sprintf("metadata totals %d bytes; at most %d are allowed", total, secretMetadataBytes)
	}
	return ""
}

func checkSecretValue(v *string) string {
	switch {
	case v == nil:
		return `request body has an error: doesn't match schema: Error at "/value": property "value" is missing`
	case *v == "":
		return "secret value cannot be empty"
	case len(*v) > maxSecretValueBytes:
		return fmt.Sprintf("secret value cannot exceed %d bytes (got %d)", maxSecretValueBytes, len(*v))
	}
	return ""
}

type secretRequest struct {
	Name     *string           `json:"name"`
	Value    *string           `json:"value"`
	Metadata map[string]string `json:"metadata"`
}

func (s *Server) handleCreateSecret(w http.ResponseWriter, r *http.Request) {
	var req secretRequest
	if err := decodeBody(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	switch {
	case req.Name == nil:
		validationError(w, `request body has an error: doesn't match schema: Error at "/name": property "name" is missing`)
		return
	case !secretNamePattern.MatchString(*req.Name):
		validationError(w, `request body has an error: doesn't match schema: Error at "/name": string doesn't match the regular expression "^[a-zA-Z0-9_-]+$" or is not 1 to 128 characters long`)
		return
	}
	name := strings.ToLower(*req.Name)
	if strings.HasPrefix(name, "sec_") {
		writeError(w, http.StatusBadRequest, "secret names cannot start with 'sec_': the prefix is reserved for secret identifiers")
		return
	}
	if msg := checkSecretValue(req.Value); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if msg := checkSecretMetadata(req.Metadata); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secretLocked(name) != nil {
		writeErrorf(w, http.StatusConflict, "secret '%s' already exists", name)
		return
	}
	now := time.Now().UTC()
	sc := &secret{id: newID("sec_", 24), name: name, versions: []string{*req.Value},
		metadata: copyMap(req.Metadata), createdAt: now, updatedAt: now}
	s.secrets[sc.id] = sc
	respondOrDrop(w, r, http.StatusCreated, sc.json())
}

// secretLocked finds a secret by ID or canonical name. Caller holds s.mu.
func (s *Server) secretLocked(idOrName string) *secret {
	if sc := s.secrets[idOrName]; sc != nil {
		return sc
	}
	for _, sc := range s.secrets {
		if sc.name == idOrName {
			return sc
		}
	}
	return nil
}

func (s *Server) handleListSecrets(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			validationError(w, `parameter "limit" in query has an error: number must be between 1 and 100`)
			return
		}
		limit = n
	}
	offset, ok := parseOffsetToken(w, q.Get("nextToken"))
	if !ok {
		return
	}
	s.mu.Lock()
	all := make([]secretJSON, 0, len(s.secrets))
	for _, sc := range s.secrets {
		all = append(all, sc.json())
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	page, next := paginate(all, offset, limit)
	if next != "" {
		w.Header().Set(hdrNextToken, next)
	}
	writeJSON(w, http.StatusOK, page)
}

func (s *Server) handleGetSecret(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secretLocked(r.PathValue("id"))
	if sc == nil {
		writeErrorf(w, http.StatusNotFound, "secret '%s' not found", r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, sc.json())
}

// handleUpdateSecret appends a version; metadata is replaced when given.
func (s *Server) handleUpdateSecret(w http.ResponseWriter, r *http.Request) {
	var req secretRequest
	if err := decodeBody(r, &req); err != nil {
		validationError(w, err.Error())
		return
	}
	if msg := checkSecretValue(req.Value); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if msg := checkSecretMetadata(req.Metadata); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secretLocked(r.PathValue("id"))
	if sc == nil {
		writeErrorf(w, http.StatusNotFound, "secret '%s' not found", r.PathValue("id"))
		return
	}
	sc.versions = append(sc.versions, *req.Value)
	if req.Metadata != nil {
		sc.metadata = copyMap(req.Metadata)
	}
	sc.updatedAt = time.Now().UTC()
	writeJSON(w, http.StatusOK, sc.json())
}

func (s *Server) handleDeleteSecret(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secretLocked(r.PathValue("id"))
	if sc == nil {
		writeErrorf(w, http.StatusNotFound, "secret '%s' not found", r.PathValue("id"))
		return
	}
	delete(s.secrets, sc.id)
	w.WriteHeader(http.StatusNoContent)
}

// secretValue is the current value of the named secret, for the proxy.
func (s *Server) secretValue(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.secretLocked(strings.ToLower(name))
	if sc == nil {
		return "", false
	}
	return sc.versions[len(sc.versions)-1], true
}
