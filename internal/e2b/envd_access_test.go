package e2b_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A sealed envd access opens only with the same API key and for the same sandbox, holds the
// token only in encrypted form, and reaches envd without a control-plane read.
func TestEmulatorSealedEnvdAccess(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Secure: ptr(true)})
	other := e.create(t, e2b.CreateSandboxRequest{})
	sealed := e.c.SealedEnvdAccess(sb.SandboxID)
	if len(sealed) == 0 {
		t.Fatal("no sealed access for a sandbox the client created")
	}
	if sb.EnvdAccessToken == "" || bytes.Contains(sealed, []byte(sb.EnvdAccessToken)) {
		t.Fatalf("the sealed access holds the token in the clear (token %q)", sb.EnvdAccessToken)
	}

	// A fresh client with the same key: no cache, and no request to open the access.
	fresh, err := e2b.New(e2b.Config{APIKey: e.srv.APIKey(), APIURL: e.srv.APIURL(), SandboxURL: e.srv.SandboxURL()})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.ResetCounters()
	envd, ok := fresh.EnvdFromSealed(sb.SandboxID, "", sealed)
	if !ok {
		t.Fatal("the same API key could not open the sealed access")
	}
	if _, err := envd.WriteFile(e.ctx, "/home/user/sealed.txt", strings.NewReader("x"), e2b.WriteOptions{}); err != nil {
		t.Fatalf("envd from the sealed access: %v", err)
	}
	if got := e.srv.Counters().Requests; got["GET /sandboxes/{id}"] != 0 {
		t.Fatalf("opening the sealed access read the sandbox: %v", got)
	}
	if got := fresh.SealedEnvdAccess(sb.SandboxID); got != nil {
		t.Error("a client that never saw the sandbox sealed an access for it")
	}
	// Once it worked and is kept, the client reaches the sandbox without a read.
	envd.KeepAccess()
	if _, err := fresh.SandboxEnvd(e.ctx, sb.SandboxID, ""); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.Counters().Requests; got["GET /sandboxes/{id}"] != 0 {
		t.Fatalf("a kept access was read again: %v", got)
	}

	// Resealing what still holds the known access gives the same bytes; anything else a new seal.
	if got := e.c.ResealEnvdAccess(sb.SandboxID, sealed); !bytes.Equal(got, sealed) {
		t.Error("resealing an unchanged access changed it")
	}
	if got := e.c.ResealEnvdAccess(sb.SandboxID, damaged(sealed)); len(got) == 0 || bytes.Equal(got, sealed) {
		t.Error("a damaged access was not replaced by a fresh seal")
	}
	if _, ok := fresh.EnvdFromSealed(other.SandboxID, "", sealed); ok {
		t.Error("the access of one sandbox opened for another")
	}
	otherKey, err := e2b.New(e2b.Config{APIKey: "e2b_" + strings.Repeat("0", 40), APIURL: e.srv.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := otherKey.EnvdFromSealed(sb.SandboxID, "", sealed); ok {
		t.Error("another API key opened the sealed access")
	}
	if _, ok := fresh.EnvdFromSealed(sb.SandboxID, "", damaged(sealed)); ok {
		t.Error("a damaged sealed access opened")
	}
	if err := e.c.PauseSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	if got := e.c.SealedEnvdAccess(sb.SandboxID); got != nil {
		t.Error("sealed the access of a paused sandbox")
	}
}

// damaged is sealed with its last byte flipped.
func damaged(sealed []byte) []byte {
	d := bytes.Clone(sealed)
	d[len(d)-1] ^= 1
	return d
}
