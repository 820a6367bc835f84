package emulator

import "net/http"

func notYet(w http.ResponseWriter, _ *http.Request) {
	writeError(w, http.StatusNotImplemented, "not implemented by the emulator yet")
}

func (s *Server) handleFork(w http.ResponseWriter, r *http.Request)           { notYet(w, r) }
func (s *Server) handleCreateSnapshot(w http.ResponseWriter, r *http.Request) { notYet(w, r) }
func (s *Server) handleListSnapshots(w http.ResponseWriter, r *http.Request)  { notYet(w, r) }
func (s *Server) handleSandboxMetrics(w http.ResponseWriter, r *http.Request) { notYet(w, r) }
func (s *Server) handleManyMetrics(w http.ResponseWriter, r *http.Request)    { notYet(w, r) }
func (s *Server) handleLogsV1(w http.ResponseWriter, r *http.Request)         { notYet(w, r) }
func (s *Server) handleLogsV2(w http.ResponseWriter, r *http.Request)         { notYet(w, r) }
func (s *Server) handleListTemplates(w http.ResponseWriter, r *http.Request)  { notYet(w, r) }
func (s *Server) handleGetTemplate(w http.ResponseWriter, r *http.Request)    { notYet(w, r) }
func (s *Server) handleDeleteTemplate(w http.ResponseWriter, r *http.Request) { notYet(w, r) }
func (s *Server) handleTemplateAlias(w http.ResponseWriter, r *http.Request)  { notYet(w, r) }
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request)           { notYet(w, r) }
