package e2b

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	pathpkg "path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// The volume-content API (E2B's openapi-volumecontent.yml) reads and writes a
// volume's files without a sandbox. It is served on the API host and takes
// the volume's own token (from the volume's create or get answer) as a bearer
// token instead of the API key. The token is never handed out of this
// package: it is fetched per volume when first needed, kept in memory for the
// process, and fetched again when the API refuses it.

// Volume entry types, as the volume-content API names them.
const (
	VolumeEntryFile      = "file"
	VolumeEntryDirectory = "directory"
	VolumeEntrySymlink   = "symlink"
)

// VolumeEntry is one file, directory or link of a volume (VolumeEntryStat).
type VolumeEntry struct {
	Name   string
	Type   string // VolumeEntryFile, VolumeEntryDirectory, VolumeEntrySymlink or "unknown"
	Path   string // absolute inside the volume
	Size   int64
	Mode   uint32 // permission bits
	UID    uint32
	GID    uint32
	ATime  time.Time
	MTime  time.Time
	CTime  time.Time
	Target string // a link's target
}

// VolumeOwnership is the mode and owner a write or metadata change sets; nil
// fields are left to E2B (a new file's defaults, an existing file's values).
type VolumeOwnership struct {
	Mode, UID, GID *uint32
}

func (o VolumeOwnership) query(q url.Values) {
	for name, v := range map[string]*uint32{"mode": o.Mode, "uid": o.UID, "gid": o.GID} {
		if v != nil {
			q.Set(name, strconv.FormatUint(uint64(*v), 10))
		}
	}
}

// VolumeFiles is the volume-content API of one volume.
type VolumeFiles struct {
	c        *Client
	volumeID string
}

// VolumeFiles returns the volume-content API of a volume. Nothing is sent
// until a call needs it.
func (c *Client) VolumeFiles(volumeID string) *VolumeFiles {
	return &VolumeFiles{c: c, volumeID: volumeID}
}

// CheckVolumePath returns "" when p can name an entry of a volume through the
// volume-content API, else the rule it breaks ("must be ..."). The API cleans
// what it gets; the provider asks for the clean absolute form so that one
// file has one spelling, and never lets ".." climb (the API would stop it at
// the volume's root, silently naming another file).
func CheckVolumePath(p string) string {
	switch {
	case !strings.HasPrefix(p, "/"):
		return `must be an absolute path inside the volume, such as "/data/config.json"`
	case p == "/":
		return "must name a file, not the volume's root"
	case strings.HasSuffix(p, "/"):
		return "must name a file, not end with \"/\""
	case slicesContains(strings.Split(p, "/"), ".."):
		return `must not contain ".." (paths cannot leave the volume, nor climb back in it)`
	case pathpkg.Clean(p) != p:
		return fmt.Sprintf("must be a clean path (%q, without \"//\" or \"/./\")", pathpkg.Clean(p))
	}
	return ""
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// volumeTokens caches volume tokens per API, key and volume for the process.
var volumeTokens = struct {
	mu sync.Mutex
	m  map[[32]byte]string
}{m: map[[32]byte]string{}}

func (v *VolumeFiles) tokenKey() [32]byte {
	return sha256.Sum256([]byte(v.c.apiURL.String() + "\x00" + v.c.cfg.APIKey + "\x00" + v.volumeID))
}

// token is the volume's content token: the cached one, or else the one the
// volume's get answers. fresh skips (and replaces) the cached one.
func (v *VolumeFiles) token(ctx context.Context, fresh bool) (string, error) {
	key := v.tokenKey()
	if !fresh {
		volumeTokens.mu.Lock()
		t := volumeTokens.m[key]
		volumeTokens.mu.Unlock()
		if t != "" {
			return t, nil
		}
	}
	vol, err := v.c.GetVolume(ctx, v.volumeID)
	if err != nil {
		return "", err
	}
	if vol.Token == "" {
		return "", fmt.Errorf("get volume %q: E2B answered without the volume's token, which its content API needs", v.volumeID)
	}
	volumeTokens.mu.Lock()
	volumeTokens.m[key] = vol.Token
	volumeTokens.mu.Unlock()
	return vol.Token, nil
}

// withToken runs call with the volume's token, and once more with a token
// fetched afresh when the API refuses the first (401: a cached token that no
// longer holds).
func (v *VolumeFiles) withToken(ctx context.Context, call func(token string) error) error {
	for fresh := false; ; fresh = true {
		token, err := v.token(ctx, fresh)
		if err != nil {
			return err
		}
		err = call(token)
		if err == nil || fresh || !isVolumeTokenRefused(err) {
			return err
		}
	}
}

func isVolumeTokenRefused(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusUnauthorized
}

func (v *VolumeFiles) target(route, p string, q url.Values) string {
	if q == nil {
		q = url.Values{}
	}
	q.Set("path", p)
	return v.c.apiURL.String() + "/volumecontent/" + pathSeg(v.volumeID) + "/" + route + "?" + q.Encode()
}

func (v *VolumeFiles) setHeaders(h http.Header, token string) {
	h.Set("Authorization", "Bearer "+token)
	h.Set("User-Agent", v.c.userAgent)
}

// volumeContentError builds the APIError of a non-success answer. The API's
// Error schema has a string code; a 404 in that shape is E2B's own answer that
// the volume or the path does not exist.
func volumeContentError(op string, resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{Op: op, StatusCode: resp.StatusCode, URL: requestURL(resp), side: sideVolume, foreign: true}
	var w struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	}
	if msg := redirectMessage(resp); msg != "" {
		e.Message = msg
		return e
	}
	if json.Unmarshal(body, &w) == nil && w.Code != nil && w.Message != nil {
		e.Message, e.foreign, e.shape = *w.Message, false, shapeE2B
		e.notFound = resp.StatusCode == http.StatusNotFound
		return e
	}
	if p := parseErrorBody(resp.StatusCode, body); p.shape == shapeE2B {
		e.Message, e.foreign, e.shape = p.message, false, shapeE2B
		e.notFound = resp.StatusCode == http.StatusNotFound
		return e
	}
	e.Message = strings.TrimSpace(string(body))
	if len(e.Message) > 512 {
		e.Message = e.Message[:512] + "…"
	}
	return e
}

// jsonCall sends a request without a body or with a JSON one through the
// retrying client and decodes a JSON answer into out.
func (v *VolumeFiles) jsonCall(ctx context.Context, op, method, route, p string, q url.Values, body, out any, class retryClass) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return fmt.Errorf("%s: encode request: %w", op, err)
		}
	}
	return v.withToken(ctx, func(token string) error {
		ci := &callInfo{op: op, class: class, timeout: timeoutWhole}
		var reqBody any
		if raw != nil {
			reqBody = raw
		}
		req, err := retryablehttp.NewRequestWithContext(withCall(ctx, ci), method, v.target(route, p, q), reqBody)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		v.setHeaders(req.Header, token)
		req.Header.Set("Accept", "application/json")
		if raw != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := v.c.control.Do(req)
		if err != nil {
			return requestError(ctx, op, "", err)
		}
		defer drainClose(resp.Body)
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return volumeContentError(op, resp)
		}
		if out != nil {
			if err := json.NewDecoder(capReader(resp.Body, controlAnswerLimit)).Decode(out); err != nil {
				return &transportError{op: op, err: fmt.Errorf("decode %d response: %w", resp.StatusCode, err)}
			}
		}
		return nil
	})
}

func (v *VolumeFiles) op(what, p string) string {
	return fmt.Sprintf("%s %q in volume %q", what, p, v.volumeID)
}

// Stat reads an entry of the volume. A missing path (or volume) gives IsNotFound.
func (v *VolumeFiles) Stat(ctx context.Context, p string) (*VolumeEntry, error) {
	var w wireVolumeEntry
	if err := v.jsonCall(ctx, v.op("stat", p), http.MethodGet, "path", p, nil, nil, &w, retryIdempotent); err != nil {
		return nil, err
	}
	return w.entry(), nil
}

// List lists a directory to depth levels (1: its own entries).
func (v *VolumeFiles) List(ctx context.Context, dir string, depth int) ([]VolumeEntry, error) {
	q := url.Values{}
	if depth > 0 {
		q.Set("depth", strconv.Itoa(depth))
	}
	var w []wireVolumeEntry
	if err := v.jsonCall(ctx, v.op("list", dir), http.MethodGet, "dir", dir, q, nil, &w, retryIdempotent); err != nil {
		return nil, err
	}
	out := make([]VolumeEntry, 0, len(w))
	for _, e := range w {
		out = append(out, *e.entry())
	}
	return out, nil
}

// MakeDirs creates a directory and its missing parents (the API's force); an
// existing directory is kept as it is. Sending it again has the effect of
// sending it once.
func (v *VolumeFiles) MakeDirs(ctx context.Context, dir string) error {
	q := url.Values{"force": {"true"}}
	err := v.jsonCall(ctx, v.op("create directory", dir), http.MethodPost, "dir", dir, q, nil, nil, retryIdempotent)
	if e, ok := asAPIError(err); ok && e.StatusCode == http.StatusConflict {
		return nil // it exists
	}
	return err
}

// SetOwnership changes an entry's mode, uid or gid (the fields set in o).
func (v *VolumeFiles) SetOwnership(ctx context.Context, p string, o VolumeOwnership) (*VolumeEntry, error) {
	body := map[string]uint32{}
	for name, val := range map[string]*uint32{"mode": o.Mode, "uid": o.UID, "gid": o.GID} {
		if val != nil {
			body[name] = *val
		}
	}
	var w wireVolumeEntry
	if err := v.jsonCall(ctx, v.op("change metadata of", p), http.MethodPatch, "path", p, nil, body, &w, retryIdempotent); err != nil {
		return nil, err
	}
	return w.entry(), nil
}

// ReadFile downloads a file as a stream; the caller must Close it. Retried
// (it only reads) until the body starts.
func (v *VolumeFiles) ReadFile(ctx context.Context, p string) (io.ReadCloser, error) {
	op := v.op("read file", p)
	var body io.ReadCloser
	err := v.withToken(ctx, func(token string) error {
		req, err := retryablehttp.NewRequestWithContext(withCall(ctx, &callInfo{op: op, class: retryIdempotent, timeout: timeoutHeaders}), http.MethodGet, v.target("file", p, nil), nil)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		v.setHeaders(req.Header, token)
		resp, err := v.c.control.Do(req)
		if err != nil {
			return requestError(ctx, op, "", err)
		}
		if resp.StatusCode != http.StatusOK {
			defer drainClose(resp.Body)
			return volumeContentError(op, resp)
		}
		body = resp.Body
		return nil
	})
	return body, err
}

// RemoveFile deletes a file or link; a missing path is not an error. The
// API's delete removes directories with everything in them, so the entry is
// checked first and anything else is refused with a *NotAFileError.
// What the API cannot tell: a file replaced by a directory between the check
// and the delete (a sandbox that mounts the volume would have to do it in
// that moment).
func (v *VolumeFiles) RemoveFile(ctx context.Context, p string) error {
	e, err := v.Stat(ctx, p)
	switch {
	case IsNotFound(err):
		return nil
	case err != nil:
		return err
	case e.Type == VolumeEntryDirectory:
		return &NotAFileError{Path: p, Type: FileTypeDir}
	case e.Type != VolumeEntryFile && e.Type != VolumeEntrySymlink:
		return &NotAFileError{Path: p}
	}
	err = v.jsonCall(ctx, v.op("delete", p), http.MethodDelete, "path", p, nil, nil, nil, retryIdempotent)
	if IsNotFound(err) {
		return nil // an earlier attempt whose answer was lost deleted it
	}
	return err
}

// WriteFile uploads a file, replacing one at p, streaming what open returns:
// the content is never held in memory as a whole. open is called once per
// attempt. A failed attempt (no answer, 429 or 5xx) is sent again from the
// start: writing the same content to the same path has the effect of writing
// it once, so an answer lost behind a gateway changes nothing. Missing parent
// directories are created (E2B's emulator creates them with the upload's
// force; E2B's spec gives force only the meaning "overwrite", so a 404 for the
// path creates them with MakeDirs and sends the file again).
func (v *VolumeFiles) WriteFile(ctx context.Context, p string, open func() (io.ReadCloser, error), o VolumeOwnership) (*VolumeEntry, error) {
	e, err := v.writeRetrying(ctx, p, open, o)
	if IsNotFound(err) && pathpkg.Dir(p) != "/" {
		if derr := v.MakeDirs(ctx, pathpkg.Dir(p)); derr != nil {
			return nil, derr
		}
		e, err = v.writeRetrying(ctx, p, open, o)
	}
	return e, err
}

func (v *VolumeFiles) writeRetrying(ctx context.Context, p string, open func() (io.ReadCloser, error), o VolumeOwnership) (*VolumeEntry, error) {
	for attempt := 0; ; attempt++ {
		var e *VolumeEntry
		err := v.withToken(ctx, func(token string) error {
			r, err := open()
			if err != nil {
				return &localReadError{path: p, err: err}
			}
			defer func() { _ = r.Close() }()
			src := &errReader{r: r}
			e, err = v.upload(ctx, p, src, token, o)
			if src.err != nil {
				return &localReadError{path: p, err: src.err}
			}
			return err
		})
		var local *localReadError
		if err == nil || errors.As(err, &local) || !volumeUploadRetryable(err) || attempt >= v.c.retryMax || ctx.Err() != nil {
			return e, err
		}
		if err := sleepCtx(ctx, backoff(v.c.cfg.RetryWaitMin, v.c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
	}
}

func volumeUploadRetryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	e, ok := asAPIError(err)
	return ok && (e.StatusCode == http.StatusTooManyRequests ||
		(e.StatusCode >= 500 && e.StatusCode != http.StatusNotImplemented))
}

// upload sends one PUT; the plain client, as retryablehttp would read the
// whole body into memory.
func (v *VolumeFiles) upload(ctx context.Context, p string, body io.Reader, token string, o VolumeOwnership) (*VolumeEntry, error) {
	op := v.op("write file", p)
	q := url.Values{"force": {"true"}}
	o.query(q)
	req, err := http.NewRequestWithContext(withCall(ctx, &callInfo{op: op, class: retryNever, timeout: timeoutNone}),
		http.MethodPut, v.target("file", p, q), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	v.setHeaders(req.Header, token)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := v.c.control.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		return nil, &transportError{op: op, err: redactURLError(err)}
	}
	defer drainClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, volumeContentError(op, resp)
	}
	var w wireVolumeEntry
	if err := json.NewDecoder(capReader(resp.Body, unaryAnswerLimit)).Decode(&w); err != nil {
		return nil, &transportError{op: op, err: fmt.Errorf("decode %d response: %w", resp.StatusCode, err)}
	}
	return w.entry(), nil
}

type wireVolumeEntry struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"`
	Path   string    `json:"path"`
	Size   int64     `json:"size"`
	Mode   uint32    `json:"mode"`
	UID    uint32    `json:"uid"`
	GID    uint32    `json:"gid"`
	ATime  time.Time `json:"atime"`
	MTime  time.Time `json:"mtime"`
	CTime  time.Time `json:"ctime"`
	Target string    `json:"target"`
}

func (w wireVolumeEntry) entry() *VolumeEntry {
	return &VolumeEntry{Name: w.Name, Type: w.Type, Path: w.Path, Size: w.Size, Mode: w.Mode & 0o7777,
		UID: w.UID, GID: w.GID, ATime: w.ATime, MTime: w.MTime, CTime: w.CTime, Target: w.Target}
}
