package controlplane

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// SecretJSON is E2B's Secret schema: metadata only.
type SecretJSON struct {
	SecretID       string            `json:"secretID"`
	Name           string            `json:"name"`
	CurrentVersion int64             `json:"currentVersion"`
	Metadata       map[string]string `json:"metadata"`
	CreatedAt      time.Time         `json:"createdAt"`
	UpdatedAt      time.Time         `json:"updatedAt"`
}

func secretJSONOf(sc store.Secret) SecretJSON {
	return SecretJSON{SecretID: sc.ID, Name: sc.Name, CurrentVersion: sc.CurrentVersion,
		Metadata: copyMap(sc.Metadata), CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
}

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

type secretRequestJSON struct {
	Name     *string           `json:"name"`
	Value    *string           `json:"value"`
	Metadata map[string]string `json:"metadata"`
}

// validate checks the value and metadata of a create or an update; "" when they are fine.
func (req secretRequestJSON) validate() string {
	if msg := checkSecretValue(req.Value); msg != "" {
		return msg
	}
	return checkSecretMetadata(req.Metadata)
}

func (s *API) handleCreateSecret(w http.ResponseWriter, r *http.Request) {
	var req secretRequestJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Name == nil { // the request validator checked; kept for the pointer
		missingProperty(w, "name")
		return
	}
	name := strings.ToLower(*req.Name)
	if strings.HasPrefix(name, "sec_") {
		writeError(w, http.StatusBadRequest, "secret names cannot start with 'sec_': the prefix is reserved for secret identifiers")
		return
	}
	if msg := req.validate(); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	sc, ok := s.opts.Store.CreateSecret(ids.New("sec_", 24), name, *req.Value, req.Metadata)
	if !ok {
		writeErrorf(w, http.StatusConflict, "secret '%s' already exists", name)
		return
	}
	respondOrDrop(w, r, http.StatusCreated, secretJSONOf(sc))
}

func (s *API) handleListSecrets(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := queryLimitBetween(w, q, 100, 1, 100)
	if !ok {
		return
	}
	offset, ok := parseOffsetToken(w, q.Get("nextToken"))
	if !ok {
		return
	}
	all := make([]SecretJSON, 0)
	for _, sc := range s.opts.Store.Secrets() {
		all = append(all, secretJSONOf(sc))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	httpjson.Write(w, http.StatusOK, pageWithToken(w, all, offset, limit))
}

func (s *API) handleGetSecret(w http.ResponseWriter, r *http.Request) {
	sc, ok := s.opts.Store.Secret(r.PathValue("id"))
	answerFound(w, r, "secret", secretJSONOf(sc), ok)
}

// handleUpdateSecret appends a version; metadata is replaced when given.
func (s *API) handleUpdateSecret(w http.ResponseWriter, r *http.Request) {
	var req secretRequestJSON
	if !decodeBody(w, r, &req) {
		return
	}
	if msg := req.validate(); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	sc, ok := s.opts.Store.AddSecretVersion(r.PathValue("id"), *req.Value, req.Metadata)
	answerFound(w, r, "secret", secretJSONOf(sc), ok)
}

func (s *API) handleDeleteSecret(w http.ResponseWriter, r *http.Request) {
	answerDeleted(w, r, "secret", s.opts.Store.DeleteSecret(r.PathValue("id")), http.StatusNoContent)
}

// SecretValue is the current value of the named secret, for the proxy.
func (s *API) SecretValue(name string) (string, bool) {
	return s.opts.Store.SecretValue(strings.ToLower(name))
}
