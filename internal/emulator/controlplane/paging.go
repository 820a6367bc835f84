package controlplane

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Offset tokens page lists that have a stable order.
func encodeOffsetToken(offset int) string {
	return base64.URLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func parseOffsetToken(w http.ResponseWriter, tok string) (int, bool) {
	if tok == "" {
		return 0, true
	}
	raw, err := base64.URLEncoding.DecodeString(tok)
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:")); err == nil && n >= 0 && strings.HasPrefix(string(raw), "offset:") {
			return n, true
		}
	}
	writeError(w, http.StatusBadRequest, "Invalid next token")
	return 0, false
}

// parsePage reads a paged list's limit (1 to 100, 100 when absent) and its
// nextToken; on false the answer is written.
func parsePage(w http.ResponseWriter, q url.Values) (limit, offset int, ok bool) {
	if limit, ok = parseLimit(w, q, 100); !ok {
		return 0, 0, false
	}
	offset, ok = parseOffsetToken(w, q.Get("nextToken"))
	return limit, offset, ok
}

// queryLimitBetween reads the limit query parameter (def when absent) that
// E2B bounds to [lo, hi]; its validator words a bad number and one out of
// bounds alike. On false the answer is written.
func queryLimitBetween(w http.ResponseWriter, q url.Values, def, lo, hi int) (int, bool) {
	v := q.Get("limit")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		validationError(w, fmt.Sprintf(`parameter "limit" in query has an error: number must be between %d and %d`, lo, hi))
		return 0, false
	}
	return n, true
}

// pageWithToken is the page of all at offset (never null), with the next
// page's token in X-Next-Token when one follows.
func pageWithToken[T any](w http.ResponseWriter, all []T, offset, limit int) []T {
	page, next := paginate(all, offset, limit)
	if next != "" {
		w.Header().Set(hdrNextToken, next)
	}
	return page
}

func paginate[T any](all []T, offset, limit int) ([]T, string) {
	if offset >= len(all) {
		return []T{}, "" // an empty page is an empty array, never null
	}
	end := offset + limit
	if end >= len(all) {
		return all[offset:], ""
	}
	return all[offset:end], encodeOffsetToken(end)
}
