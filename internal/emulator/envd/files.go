package envd

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

func (sb *Machine) serveFiles(w http.ResponseWriter, r *http.Request) {
	if status, msg := sb.authorizeFiles(r); status != 0 {
		writeError(w, status, msg)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		sb.downloadFile(w, r)
	case http.MethodPost:
		sb.uploadFiles(w, r)
	default:
		writeErrorf(w, http.StatusMethodNotAllowed, "method %s not allowed", r.Method)
	}
}

// acceptsGzip negotiates Accept-Encoding: gzip preferred, identity allowed
// unless refused; ok=false means nothing acceptable (406).
func acceptsGzip(header string) (gz, ok bool) {
	if strings.TrimSpace(header) == "" {
		return false, true
	}
	identity := true
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		zero := strings.ReplaceAll(strings.TrimSpace(params), " ", "") == "q=0"
		switch name {
		case "gzip":
			if !zero {
				gz = true
			}
		case "identity", "*":
			if zero {
				identity = false
			}
		}
	}
	return gz, gz || identity
}

func (sb *Machine) downloadFile(w http.ResponseWriter, r *http.Request) {
	v, host := sb.followPath(userPath(requestUser(r), r.URL.Query().Get("path")))
	st, err := os.Stat(host)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			writeErrorf(w, http.StatusNotFound, "path '%s' does not exist", v)
			return
		}
		writeErrorf(w, http.StatusInternalServerError, "error checking path '%s': %v", v, err)
		return
	}
	if st.IsDir() {
		writeErrorf(w, http.StatusBadRequest, "path '%s' is a directory", v)
		return
	}
	gz, ok := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if !ok {
		writeError(w, http.StatusNotAcceptable, "no acceptable encoding found, supported: [identity, gzip]")
		return
	}
	f, err := os.Open(host)
	if err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error opening file '%s': %v", v, err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": path.Base(v)}))
	w.Header().Set("Vary", "Accept-Encoding")
	if !gz {
		// Set before ServeContent, which would otherwise guess a type from the content: envd
		// answers application/octet-stream whatever the file holds.
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, path.Base(v), st.ModTime(), f)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	zw := gzip.NewWriter(w)
	if _, err := io.Copy(zw, f); err != nil {
		return // client gone
	}
	_ = zw.Close()
}

type uploadedEntryJSON struct {
	Path     string            `json:"path"`
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// uploadMetadata collects X-Metadata-<key> headers (printable ASCII only,
// within envd's size limits).
func uploadMetadata(h http.Header) (map[string]string, error) {
	var out map[string]string
	for name, values := range h {
		if !strings.HasPrefix(strings.ToLower(name), "x-metadata-") || len(values) == 0 {
			continue
		}
		key := strings.ToLower(name[len("x-metadata-"):])
		if key == "" || !printableASCII(key) || !printableASCII(values[0]) {
			return nil, fmt.Errorf("invalid metadata header %q: keys and values must be printable ASCII", name)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[key] = values[0]
	}
	return out, hostfs.ValidateMetadata(out)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func (sb *Machine) uploadFiles(w http.ResponseWriter, r *http.Request) {
	meta, err := uploadMetadata(r.Header)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var body io.Reader = r.Body
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			writeErrorf(w, http.StatusBadRequest, "error reading gzip body: %v", err)
			return
		}
		defer zr.Close()
		body = zr
	default:
		writeErrorf(w, http.StatusBadRequest, "unsupported content encoding: %s", enc)
		return
	}
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "unsupported content type: %s", r.Header.Get("Content-Type"))
		return
	}
	user := requestUser(r)
	target := r.URL.Query().Get("path")
	var entries []uploadedEntryJSON
	switch ct {
	case "application/octet-stream":
		if target == "" {
			writeError(w, http.StatusBadRequest, "path query parameter is required for application/octet-stream uploads")
			return
		}
		e, status, err := sb.writeFile(userPath(user, target), body, meta, user)
		if err != nil {
			writeError(w, status, err.Error())
			return
		}
		entries = append(entries, e)
	case "multipart/form-data":
		mr := multipart.NewReader(body, params["boundary"])
		seen := map[string]bool{}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				writeErrorf(w, http.StatusBadRequest, "error reading multipart body: %v", err)
				return
			}
			if part.FormName() != "file" {
				continue
			}
			dest := target
			if dest == "" {
				_, dp, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
				dest = dp["filename"]
			}
			dest = userPath(user, dest)
			v, _ := sb.resolvePath(dest)
			if seen[v] {
				writeErrorf(w, http.StatusBadRequest, "cannot upload multiple files to the same path '%s'", v)
				return
			}
			seen[v] = true
			e, status, err := sb.writeFile(dest, part, meta, user)
			if err != nil {
				writeError(w, status, err.Error())
				return
			}
			entries = append(entries, e)
		}
	default:
		writeErrorf(w, http.StatusBadRequest, "unsupported content type: %s", ct)
		return
	}
	if len(entries) == 0 {
		writeError(w, http.StatusBadRequest, "no file was uploaded")
		return
	}
	httpjson.Write(w, http.StatusOK, entries)
}

// writeFile streams r into the sandbox path like envd: parent directories
// and the file belong to user, and the file's metadata becomes meta.
func (sb *Machine) writeFile(p string, r io.Reader, meta map[string]string, user string) (uploadedEntryJSON, int, error) {
	v, host := sb.followPath(p)
	if st, err := os.Stat(host); err == nil && st.IsDir() {
		return uploadedEntryJSON{}, http.StatusBadRequest, fmt.Errorf("path '%s' is a directory", v)
	}
	if err := sb.ensureDirs(filepath.Dir(host), user); err != nil {
		return uploadedEntryJSON{}, http.StatusInternalServerError, fmt.Errorf("error creating parent directories of '%s': %v", v, err)
	}
	f, err := os.OpenFile(host, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return uploadedEntryJSON{}, http.StatusInternalServerError, fmt.Errorf("error opening file '%s': %v", v, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return uploadedEntryJSON{}, http.StatusBadRequest, fmt.Errorf("error writing file '%s': %v", v, err)
	}
	if err := f.Close(); err != nil {
		return uploadedEntryJSON{}, http.StatusInternalServerError, fmt.Errorf("error closing file '%s': %v", v, err)
	}
	if err := sb.persistUpload(host, meta, user); err != nil {
		return uploadedEntryJSON{}, http.StatusInternalServerError, fmt.Errorf("error writing file metadata of '%s': %v", v, err)
	}
	// The answer reports what the file now carries, as envd reads it back.
	return uploadedEntryJSON{Path: v, Name: path.Base(v), Type: "file", Metadata: hostfs.ReadMetadata(host)}, 0, nil
}

// persistUpload records owner and metadata of an uploaded file. A file
// system without extended attributes keeps neither, as on envd.
func (sb *Machine) persistUpload(host string, meta map[string]string, user string) error {
	if err := sb.chownFor(host, user); err != nil {
		return err
	}
	for _, err := range []error{hostfs.SetOwner(host, user), hostfs.WriteMetadata(host, meta)} {
		switch {
		case err == nil:
		case !hostfs.XattrUnsupported(err):
			return err
		case len(meta) > 0 || user != defaultUser:
			sb.settings.Logf("emulator: %s: the file system has no extended attributes; owner and metadata not kept", host)
			return nil
		}
	}
	return nil
}

// composeFiles concatenates source files into destination and deletes the
// sources (POST /files/compose).
func (sb *Machine) composeFiles(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SourcePaths []string `json:"source_paths"`
		Destination string   `json:"destination"`
	}
	if err := httpjson.Decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.SourcePaths) == 0 || req.Destination == "" {
		writeError(w, http.StatusBadRequest, "source_paths and destination are required")
		return
	}
	var files []*os.File
	var readers []io.Reader
	var hosts []string
	user := requestUser(r)
	for _, p := range req.SourcePaths {
		v, host := sb.resolvePath(userPath(user, p))
		f, err := os.Open(host)
		if err != nil {
			closeAll(files...)
			if errors.Is(err, os.ErrNotExist) {
				writeErrorf(w, http.StatusNotFound, "path '%s' does not exist", v)
				return
			}
			writeErrorf(w, http.StatusInternalServerError, "error opening file '%s': %v", v, err)
			return
		}
		files = append(files, f)
		readers = append(readers, f)
		hosts = append(hosts, host)
	}
	dv, dhost := sb.resolvePath(userPath(user, req.Destination))
	err := hostfs.WriteFile(dhost+".compose-"+ids.New("", 8), dhost, io.MultiReader(readers...))
	closeAll(files...)
	if err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error writing '%s': %v", dv, err)
		return
	}
	for _, h := range hosts {
		if h != dhost {
			_ = os.Remove(h)
		}
	}
	if err := sb.persistUpload(dhost, nil, user); err != nil {
		writeErrorf(w, http.StatusInternalServerError, "error writing '%s': %v", dv, err)
		return
	}
	httpjson.Write(w, http.StatusOK, uploadedEntryJSON{Path: dv, Name: path.Base(dv), Type: "file"})
}
