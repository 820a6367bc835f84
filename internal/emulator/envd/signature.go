package envd

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"
)

// FileSignature is envd's signed-URL signature.
func FileSignature(filePath, op, user, token, expiration string) string {
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

// authorizeFiles applies envd's token-or-signature rule for /files.
func (sb *Machine) authorizeFiles(r *http.Request) (int, string) {
	if sb.accessToken == "" {
		return 0, ""
	}
	token := sb.accessToken
	if h := r.Header.Get(hdrAccessToken); h != "" {
		if subtle.ConstantTimeCompare([]byte(h), []byte(token)) == 1 {
			return 0, ""
		}
		return http.StatusUnauthorized, Unauthorized
	}
	q := r.URL.Query()
	sig := q.Get("signature")
	if sig == "" {
		return http.StatusUnauthorized, "missing signature query parameter"
	}
	exp := q.Get("signature_expiration")
	want := FileSignature(q.Get("path"), fileOp(r), q.Get("username"), token, exp)
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

// SignatureMatches reports whether the request's signature is one this
// secure sandbox's access token made (signed URLs carry no sandbox header).
func (sb *Machine) SignatureMatches(r *http.Request) bool {
	q := r.URL.Query()
	sig := q.Get("signature")
	if sb.accessToken == "" || sig == "" {
		return false
	}
	want := FileSignature(q.Get("path"), fileOp(r), q.Get("username"), sb.accessToken, q.Get("signature_expiration"))
	return subtle.ConstantTimeCompare([]byte(sig), []byte(want)) == 1
}
