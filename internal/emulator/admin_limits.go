package emulator

import (
	"net/http"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

// serveAdminLimits serves /_emulator/limits: PUT or POST sets the limits
// (the Limits JSON), GET reads them, DELETE turns them off, and GET
// /_emulator/limits/refused counts what they refused.
func (s *Server) serveAdminLimits(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case p == "/limits" && (r.Method == http.MethodPut || r.Method == http.MethodPost):
		var l Limits
		if err := httpjson.Decode(r, &l); err != nil && err != httpjson.ErrEmptyBody {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := l.Validate(); err != nil {
			writeError(w, http.StatusBadRequest, "limits: "+err.Error())
			return
		}
		s.SetLimits(l)
		w.WriteHeader(http.StatusNoContent)
	case p == "/limits" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, s.Limits())
	case p == "/limits" && r.Method == http.MethodDelete:
		s.SetLimits(Limits{})
		w.WriteHeader(http.StatusNoContent)
	case p == "/limits/refused" && r.Method == http.MethodGet:
		httpjson.Write(w, http.StatusOK, s.LimitRefusals())
	default:
		httpjson.Errorf(w, http.StatusNotFound, "%s %s is not an emulator admin route", r.Method, r.URL.Path)
	}
}
