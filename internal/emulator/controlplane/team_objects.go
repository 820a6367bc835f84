package controlplane

import (
	"net/http"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// The team objects addressed by {id} (secrets, webhooks) answer a get, an update and a delete
// alike: the object, or E2B's 404 naming what the path asked for.

// answerFound writes v when found, else the 404 for a kind the path's {id} names.
func answerFound[T any](w http.ResponseWriter, r *http.Request, kind string, v T, found bool) {
	if !found {
		writeErrorf(w, http.StatusNotFound, "%s '%s' not found", kind, r.PathValue("id"))
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

// answerDeleted writes status when the object was deleted, else the same 404.
func answerDeleted(w http.ResponseWriter, r *http.Request, kind string, deleted bool, status int) {
	if !deleted {
		writeErrorf(w, http.StatusNotFound, "%s '%s' not found", kind, r.PathValue("id"))
		return
	}
	w.WriteHeader(status)
}
