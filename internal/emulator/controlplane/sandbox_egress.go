package controlplane

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
)

// EgressPolicy gives the egress proxy a sandbox's network settings, from the credentials its
// processes send: the sandbox's ID and its egress token.
func (s *API) EgressPolicy(id, token string) (*egress.Policy, bool) {
	if !hmac.Equal([]byte(token), []byte(s.EgressToken(id))) {
		return nil, false
	}
	if s.builds.has(id) {
		return buildEgressPolicy(), true
	}
	rec, _, ok := s.sandboxes.Get(id)
	if !ok {
		return nil, false
	}
	n, tokens := rec.Network, rec.IAMAudiences
	return &egress.Policy{
		AllowOut: append([]string(nil), n.AllowOut...), DenyOut: append([]string(nil), n.DenyOut...),
		Rules: n.Rules, Proxy: n.EgressProxy,
		Lookup: egress.Lookup{
			Secret: s.SecretValue,
			Identity: func(name string) (string, bool) {
				aud, ok := tokens[name]
				if !ok {
					return "", false
				}
				return s.workloadToken(id, name, aud), true
			},
		},
	}, true
}

// workloadToken mints what the emulator fills ${e2b.identity.tokens.<name>} with: a token in
// a JWT's shape (header.claims.signature, signed with the emulator's own key) naming the
// sandbox, the token's name and audience, new at every request. It is a stand-in: E2B mints a
// JWT-SVID that a relying party can verify against E2B's keys; nothing can verify this one.
func (s *API) workloadToken(sandboxID, name, audience string) string {
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{
		"sub": "spiffe://e2b-emulator/sandbox/" + sandboxID, "aud": audience, "name": name,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": now.UnixNano(),
	})
	body := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	m := hmac.New(sha256.New, s.opts.Seed)
	m.Write([]byte("workload-token." + body))
	return body + "." + enc.EncodeToString(m.Sum(nil))
}
