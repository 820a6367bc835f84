package controlplane

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// parseMetadataQuery decodes E2B's metadata filter: a URL-query-like string
// whose keys and values are each percent-encoded once more. A filter that is
// present but empty is malformed, as E2B's parser finds.
func parseMetadataQuery(q url.Values) (map[string]string, error) {
	if !q.Has("metadata") {
		return nil, nil
	}
	decoded, err := url.QueryUnescape(q.Get("metadata"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, pair := range strings.Split(decoded, "&") {
		parts := strings.Split(pair, "=")
		if len(parts) != 2 {
			return nil, fmt.Errorf("invalid key value pair in query")
		}
		k, err := url.QueryUnescape(parts[0])
		if err != nil {
			return nil, err
		}
		v, err := url.QueryUnescape(parts[1])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func metadataMatches(have, want map[string]string) bool {
	if len(want) == 0 {
		return true
	}
	if len(have) == 0 {
		return false
	}
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

// parseLimit validates the shared paginationLimit parameter (1..100, default 100).
func parseLimit(w http.ResponseWriter, q url.Values, max int) (int, bool) {
	raw := q.Get("limit")
	if raw == "" {
		return max, true
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		validationError(w, fmt.Sprintf(`parameter "limit" in query has an error: value %s: an invalid integer: invalid syntax`, raw))
		return 0, false
	}
	if n < 1 {
		validationError(w, `parameter "limit" in query has an error: number must be at least 1`)
		return 0, false
	}
	if n > max {
		validationError(w, fmt.Sprintf(`parameter "limit" in query has an error: number must be at most %d`, max))
		return 0, false
	}
	return n, true
}

func (s *API) handleListV1(w http.ResponseWriter, r *http.Request) {
	meta, err := parseMetadataQuery(r.URL.Query())
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Error parsing metadata: %v", err)
		return
	}
	out := []ListedSandboxJSON{}
	for _, rec := range s.sandboxes.List(false) {
		if rec.State == sandboxes.Running && metadataMatches(rec.Metadata, meta) {
			out = append(out, s.listed(rec))
		}
	}
	httpjson.Write(w, http.StatusOK, out)
}

// listCursor is the decoded nextToken: the last item of the previous page.
type listCursor struct {
	at  time.Time
	id  string
	asc bool
}

func encodeListToken(rec sandboxes.Record, asc bool) string {
	raw := rec.StartedAt.Format(time.RFC3339Nano) + "__" + rec.ID
	if asc {
		raw += "__asc"
	}
	return base64.URLEncoding.EncodeToString([]byte(raw))
}

func decodeListToken(tok string) (listCursor, error) {
	raw, err := base64.URLEncoding.DecodeString(tok)
	if err != nil {
		return listCursor{}, err
	}
	parts := strings.Split(string(raw), "__")
	if len(parts) < 2 || len(parts) > 3 || (len(parts) == 3 && parts[2] != "asc") {
		return listCursor{}, fmt.Errorf("malformed token")
	}
	at, err := time.Parse(time.RFC3339Nano, parts[0])
	if err != nil {
		return listCursor{}, err
	}
	return listCursor{at: at, id: parts[1], asc: len(parts) == 3}, nil
}

func (s *API) handleListV2(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	meta, err := parseMetadataQuery(q)
	if err != nil {
		writeErrorf(w, http.StatusBadRequest, "Error parsing metadata: %v", err)
		return
	}
	states := map[string]bool{sandboxes.Running: true, sandboxes.Paused: true}
	if raw := q["state"]; len(raw) > 0 {
		states = map[string]bool{}
		for _, v := range raw {
			for _, st := range strings.Split(v, ",") {
				if st != sandboxes.Running && st != sandboxes.Paused {
					validationError(w, fmt.Sprintf(`parameter "state" in query has an error: value is not one of the allowed values ["running","paused"]`+"\nValue:\n  %q", st))
					return
				}
				states[st] = true
			}
		}
	}
	asc := false
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		asc = true
	default:
		validationError(w, `parameter "order" in query has an error: value is not one of the allowed values ["asc","desc"]`)
		return
	}
	var startedAfter time.Time
	if raw := q.Get("startedAfter"); raw != "" {
		if startedAfter, err = time.Parse(time.RFC3339Nano, raw); err != nil {
			validationError(w, `parameter "startedAfter" in query has an error: string doesn't match the format "date-time"`)
			return
		}
	}
	tmplRef := q.Get("template")
	if strings.Contains(tmplRef, ":") {
		writeError(w, http.StatusBadRequest, "template filter must not contain a tag")
		return
	}
	limit, ok := parseLimit(w, q, 100)
	if !ok {
		return
	}
	var cursor *listCursor
	if tok := q.Get("nextToken"); tok != "" {
		c, err := decodeListToken(tok)
		if err != nil || c.asc != asc {
			writeError(w, http.StatusBadRequest, "Invalid next token")
			return
		}
		cursor = &c
	}

	var tmplID string
	if tmplRef != "" {
		if t, found := s.opts.Store.FindTemplate(tmplRef); found {
			tmplID = t.ID
		} else {
			tmplID = "\x00unknown"
		}
	}
	var matched []sandboxes.Record
	totalRunning := 0
	for _, rec := range s.sandboxes.List(asc) {
		if !states[rec.State] || !metadataMatches(rec.Metadata, meta) ||
			(tmplID != "" && rec.Template.ID != tmplID) || rec.StartedAt.Before(startedAfter) {
			continue
		}
		if rec.State == sandboxes.Running {
			totalRunning++
		}
		if cursor != nil && !sandboxes.Before(cursor.at, cursor.id, rec.StartedAt, rec.ID, asc) {
			continue
		}
		matched = append(matched, rec)
	}
	out := []ListedSandboxJSON{}
	for i, rec := range matched {
		if i == limit {
			w.Header().Set(hdrNextToken, encodeListToken(matched[i-1], asc))
			break
		}
		out = append(out, s.listed(rec))
	}
	if states[sandboxes.Running] {
		w.Header().Set("X-Total-Running", strconv.Itoa(totalRunning))
	}
	httpjson.Write(w, http.StatusOK, out)
}
