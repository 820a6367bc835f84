package controlplane

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

// Build file contexts: the SDK asks for an upload link per files hash and
// PUTs a tar (gzip by default) of the files a COPY step uses. E2B answers
// with a signed storage URL; the emulator signs a URL of its own listener
// (UploadPrefix) and keeps the archives under DataDir/template-files.
//
// E2B's answer may carry headers the upload must send (Azure's Put Blob
// refuses an upload without x-ms-blob-type); with Config.UploadHeaders the
// emulator answers with them and refuses an upload that lacks one, as such
// storage would.

const (
	UploadPrefix   = "/_upload/template-files/"
	uploadRouteKey = "PUT " + UploadPrefix + "{hash}"
	uploadURLTTL   = time.Hour
)

var filesHashPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func (s *API) filesArchivePath(hash string) string {
	return filepath.Join(s.opts.DataDir, "template-files", hash+".tar")
}

func (s *API) hasFilesArchive(hash string) bool {
	st, err := os.Stat(s.filesArchivePath(hash))
	return err == nil && st.Mode().IsRegular()
}

func (s *API) uploadSignature(hash, expires string) string {
	m := hmac.New(sha256.New, s.opts.Seed)
	m.Write([]byte("template-files:" + hash + ":" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *API) uploadURL(hash string) string {
	expires := strconv.FormatInt(time.Now().Add(uploadURLTTL).Unix(), 10)
	q := url.Values{"expires": {expires}, "signature": {s.uploadSignature(hash, expires)}}
	return s.APIURL() + UploadPrefix + hash + "?" + q.Encode()
}

// TemplateBuildFileUploadJSON is E2B's TemplateBuildFileUpload.
type TemplateBuildFileUploadJSON struct {
	Present bool              `json:"present"`
	URL     *string           `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// handleFilesLink answers GET /templates/{id}/files/{hash}: whether the
// archive is already stored and, when not, where to upload it.
func (s *API) handleFilesLink(w http.ResponseWriter, r *http.Request) {
	ref, hash := r.PathValue("id"), r.PathValue("hash")
	if !filesHashPattern.MatchString(hash) {
		writeErrorf(w, http.StatusBadRequest, "Invalid files hash '%s'", hash)
		return
	}
	if _, found := s.opts.Store.FindTemplate(ref); !found {
		templateNotFound(w, ref)
		return
	}
	if s.hasFilesArchive(hash) {
		httpjson.Write(w, http.StatusCreated, TemplateBuildFileUploadJSON{Present: true})
		return
	}
	u := s.uploadURL(hash)
	httpjson.Write(w, http.StatusCreated, TemplateBuildFileUploadJSON{Present: false, URL: &u, Headers: s.opts.UploadHeaders})
}

// ServeUpload stores an archive PUT to a signed upload URL (no API key, as
// with E2B's signed storage URLs).
func (s *API) ServeUpload(w http.ResponseWriter, r *http.Request) {
	s.opts.Count(uploadRouteKey)
	hash := strings.TrimPrefix(r.URL.Path, UploadPrefix)
	if r.Method != http.MethodPut {
		writeErrorf(w, http.StatusMethodNotAllowed, "method %s not allowed", r.Method)
		return
	}
	q := r.URL.Query()
	expires, sig := q.Get("expires"), q.Get("signature")
	exp, err := strconv.ParseInt(expires, 10, 64)
	if !filesHashPattern.MatchString(hash) || err != nil ||
		subtle.ConstantTimeCompare([]byte(sig), []byte(s.uploadSignature(hash, expires))) != 1 {
		writeError(w, http.StatusForbidden, "invalid upload signature")
		return
	}
	if time.Now().Unix() > exp {
		writeError(w, http.StatusForbidden, "upload URL expired")
		return
	}
	for k, v := range s.opts.UploadHeaders {
		if r.Header.Get(k) != v {
			writeErrorf(w, http.StatusBadRequest, "missing required upload header %s: %s", k, v)
			return
		}
	}
	dst := s.filesArchivePath(hash)
	if err := hostfs.WriteFile(dst+".part-"+ids.New("", 8), dst, r.Body); err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error storing upload: %v", err)
		return
	}
	w.WriteHeader(http.StatusOK)
}
