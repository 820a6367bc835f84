package controlplane

import (
	"encoding/base64"
	"net/http"
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
