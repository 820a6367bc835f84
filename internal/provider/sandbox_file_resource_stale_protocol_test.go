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

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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
			sb, envd := secureSandbox(t, srv)
			id := sb.SandboxID
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

// An update through a sealed access whose token envd no longer takes looks the sandbox up and
// writes the new content; what it seals for next time opens to the sandbox's current token.
func TestSandboxFileUpdate_staleSealedTokenFallsBackToLookup(t *testing.T) {
	srv := newTestEmulator(t)
	sb, envd := secureSandbox(t, srv)
	id := sb.SandboxID
	p := newProtoProvider(t, srv)
	state, private := createFileProto(t, p, id, "/home/user/upd.txt", "old\n")
	var keys map[string][]byte
	if err := json.Unmarshal(private, &keys); err != nil {
		t.Fatal(err)
	}
	keys[sealedAccessKey], _ = json.Marshal(sealStaleAccess(t, srv.APIKey(), id, "0123456789abcdef"))
	private, _ = json.Marshal(keys)

	typ := p.schema.ResourceSchemas["e2b_sandbox_file"].ValueType()
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	planned := p.dynamicValue(typ, map[string]tftypes.Value{
		"sandbox_id": str(id), "path": str("/home/user/upd.txt"), "content": str("new\n"),
		"sha256": str(sha256Hex("new\n")), "size": tftypes.NewValue(tftypes.Number, 4),
		"id": str(id + ":/home/user/upd.txt"), "absolute_path": unknown,
	})
	config := p.dynamicValue(typ, map[string]tftypes.Value{
		"sandbox_id": str(id), "path": str("/home/user/upd.txt"), "content": str("new\n"),
	})
	resp, err := newProtoProvider(t, srv).server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox_file", PriorState: state, PlannedState: planned, Config: config, PlannedPrivate: private,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("ApplyResourceChange (update)", resp.Diagnostics)
	if got, err := readRemote(envd, "/home/user/upd.txt"); err != nil || got != "new\n" {
		t.Fatalf("the file holds %q (%v), want the new content", got, err)
	}
	if err := json.Unmarshal(resp.Private, &keys); err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	if err := json.Unmarshal(keys[sealedAccessKey], &sealed); err != nil || len(sealed) == 0 {
		t.Fatalf("no sealed access after the update: %s", resp.Private)
	}
	again, ok := testAccClient(t, srv).EnvdFromSealed(id, "", sealed)
	if !ok {
		t.Fatal("the access sealed after the update does not open")
	}
	if _, err := again.Stat(context.Background(), "/home/user/upd.txt"); err != nil {
		t.Errorf("the access sealed after the update is refused: %v", err)
	}
}
