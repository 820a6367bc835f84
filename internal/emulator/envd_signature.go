package emulator

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"
)

// fileSignature is envd's signed-URL signature.
func fileSignature(filePath, op, user, token, expiration string) string {
	raw := filePath + ":" + op + ":" + user + ":" + token
	if expiration != "" {
		raw += ":" + expiration
	}
	sum := sha256.Sum256([]byte(raw))
	return "v1_" + base64.RawStdEncoding.EncodeToString(sum[:])
}

func fileOp(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return "read"
	}
	return "write"
}

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
		if !sb.secure {
			continue
		}
		want := fileSignature(q.Get("path"), fileOp(r), q.Get("username"), s.accessToken(sb.id), q.Get("signature_expiration"))
		if subtle.ConstantTimeCompare([]byte(sig), []byte(want)) == 1 {
			match = sb
			break
		}
	}
	s.mu.Unlock()
	return match
}

// authorizeFiles applies envd's token-or-signature rule for /files.
func (s *Server) authorizeFiles(r *http.Request, sb *sandbox) (int, string) {
	if !sb.secure {
		return 0, ""
	}
	token := s.accessToken(sb.id)
	if h := r.Header.Get(hdrAccessToken); h != "" {
		if subtle.ConstantTimeCompare([]byte(h), []byte(token)) == 1 {
			return 0, ""
		}
		return http.StatusUnauthorized, unauthorizedEnvd
	}
	q := r.URL.Query()
	sig := q.Get("signature")
	if sig == "" {
		return http.StatusUnauthorized, "missing signature query parameter"
	}
	exp := q.Get("signature_expiration")
	want := fileSignature(q.Get("path"), fileOp(r), q.Get("username"), token, exp)
	if subtle.ConstantTimeCompare([]byte(sig), []byte(want)) != 1 {
		return http.StatusUnauthorized, "invalid signature"
	}
	if exp != "" {
		n, err := strconv.ParseInt(exp, 10, 64)
		if err != nil {
			return http.StatusBadRequest, "invalid signature_expiration"
		}
		if n < time.Now().Unix() {
			return http.StatusUnauthorized, "signature is already expired"
		}
	}
	return 0, ""
}
