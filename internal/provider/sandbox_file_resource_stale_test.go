package provider

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// sealStaleAccess seals an envd access holding token for sandboxID under apiKey, as a client
// that read the sandbox when its token was token would have sealed it.
func sealStaleAccess(t *testing.T, apiKey, sandboxID, token string) []byte {
	t.Helper()
	key, err := hkdf.Key(sha256.New, []byte(apiKey), nil, "terraform-provider-e2b sealed envd access v1", 32)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(map[string]string{"t": token, "d": ""})
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, plain, []byte(sandboxID))
}

// A sealed access that no longer serves is not the end of a destroy: one whose token envd no
// longer takes (the sandbox's token changed since it was sealed), and one sealed under an API key
// since rotated, make the delete look the sandbox up again and remove the file.
func TestSandboxFileDelete_staleSealedAccessFallsBackToLookup(t *testing.T) {
	for name, seal := range map[string]func(apiKey, id, token string) []byte{
		"token changed": func(apiKey, id, _ string) []byte { return sealStaleAccess(t, apiKey, id, "0123456789abcdef") },
		"api key rotated": func(_, id, token string) []byte {
			return sealStaleAccess(t, "e2b_0000000000000000000000000000000000000000", id, token)
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newTestEmulator(t)
			client := testAccClient(t, srv)
			sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600, Secure: new(true)})
			if err != nil {
				t.Fatal(err)
			}
			id := sb.SandboxID
			envd, err := client.SandboxEnvd(context.Background(), id, "")
			if err != nil {
				t.Fatal(err)
			}
			state, private := createFileProto(t, newProtoProvider(t, srv), id, "stale.txt", "stale\n")
			var keys map[string][]byte // each value is the JSON a key holds, base64 in the whole
			if err := json.Unmarshal(private, &keys); err != nil {
				t.Fatal(err)
			}
			keys[sealedAccessKey], _ = json.Marshal(seal(srv.APIKey(), id, sb.EnvdAccessToken))
			private, _ = json.Marshal(keys)

			srv.ResetCounters()
			for _, d := range deleteFileProto(t, newProtoProvider(t, srv), state, private) {
				t.Errorf("delete: %v %s: %s", d.Severity, d.Summary, d.Detail)
			}
			if got := srv.Counters().Requests["GET /sandboxes/{id}"]; got != 1 {
				t.Errorf("the sandbox was read %d times, want once", got)
			}
			if _, err := readRemote(envd, "/home/user/stale.txt"); !e2b.IsNotFound(err) {
				t.Errorf("the file is still there: %v", err)
			}
		})
	}
}
