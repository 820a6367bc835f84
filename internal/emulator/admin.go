package emulator

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// serveAdmin serves /_emulator/*: faults, limits, counters, templates, expiry and a
// sandbox's HTTPS ports.
// Admin routes are exempt from faults and need no API key, but always
// "Authorization: Bearer <admin token>" (Options.AdminToken, random by
// default): sandbox code reaches this port like any other. A POST or
// PUT must say it sends JSON, which a web page cannot do without the
// browser asking first (no cross-site form posts to a local emulator).
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	got, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !bearer || s.opts.AdminToken == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.AdminToken)) != 1 {
		writeError(w, http.StatusUnauthorized, "the admin API needs Authorization: Bearer <admin token>")
		return
	}
	// A page can POST a form or text/plain anywhere without asking first;
	// PUT and DELETE need the browser's permission, which is never given.
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "the admin API accepts only Content-Type: application/json")
			return
		}
	}
	p := strings.TrimPrefix(r.URL.Path, "/_emulator")
	switch {
	case p == "/faults" && (r.Method == http.MethodPut || r.Method == http.MethodPost):
		var f Faults
		if err := httpjson.Decode(r, &f); err != nil && err != httpjson.ErrEmptyBody {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := f.Validate(); err != nil {
			writeError(w, http.StatusBadRequest, "faults: "+err.Error())
			return
		}
		s.SetFaults(f)
		w.WriteHeader(http.StatusNoContent)
	case p == "/faults" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, s.faults.current())
	case p == "/faults" && r.Method == http.MethodDelete:
		s.SetFaults(Faults{})
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(p, "/limits"):
		s.serveAdminLimits(w, r, p)
	case p == "/counters" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, s.Counters())
	case p == "/counters" && r.Method == http.MethodDelete:
		s.ResetCounters()
		w.WriteHeader(http.StatusNoContent)
	case p == "/templates" && r.Method == http.MethodPost:
		var t TemplateSeed
		if err := httpjson.Decode(r, &t); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		httpjson.Write(w, http.StatusCreated, s.cp.SeedTemplate(t))
	case strings.HasPrefix(p, "/sandboxes/") && strings.HasSuffix(p, "/expire") && r.Method == http.MethodPost:
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/sandboxes/"), "/expire")
		if err := s.Expire(id); err != nil {
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(p, "/sandboxes/") && strings.HasSuffix(p, "/https-ports") && r.Method == http.MethodPut:
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/sandboxes/"), "/https-ports")
		var body struct {
			HTTPSPorts []uint32 `json:"httpsPorts"`
		}
		if err := httpjson.Decode(r, &body); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := s.SetSandboxHTTPSPorts(id, body.HTTPSPorts); err != nil {
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		httpjson.Errorf(w, http.StatusNotFound, "%s %s is not an emulator admin route", r.Method, r.URL.Path)
	}
}
