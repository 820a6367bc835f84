package volumeapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Token is the volume's content token: a JWT (HS256) naming the volume, signed with its key, so
// it stays valid across restarts and is useless for any other volume.
func Token(v store.Volume) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"volumeID": v.ID, "iat": v.CreatedAt.Unix()})
	body := head + "." + enc.EncodeToString(claims)
	return body + "." + enc.EncodeToString(sign(v, body))
}

func sign(v store.Volume, body string) []byte {
	m := hmac.New(sha256.New, []byte(v.Key))
	m.Write([]byte(body))
	return m.Sum(nil)
}

func validToken(v store.Volume, token string) bool {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	return err == nil && hmac.Equal(sig, sign(v, token[:i]))
}
