package emulator

import "net/http"

// sandboxBySignature finds the sandbox whose access token validates the
// request's signature (signed URLs carry no sandbox header).
func (s *Server) sandboxBySignature(r *http.Request) *sandbox {
	q := r.URL.Query()
	sig := q.Get("signature")
	if sig == "" {
		return nil
	}
	s.mu.Lock()
	var match *sandbox
	for _, sb := range s.sandboxes {
		if sb.SignatureMatches(r) {
			match = sb
			break
		}
	}
	s.mu.Unlock()
	return match
}
