package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestSecretLifecycleThroughTheClient(t *testing.T) {
	e := newEnv(t)
	s, err := e.c.CreateSecret(e.ctx, "Deploy-Token", "first", map[string]string{"owner": "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "deploy-token" || s.CurrentVersion != 1 || s.Metadata["owner"] != "ci" {
		t.Fatalf("created %+v", s)
	}
	if _, err := e.c.CreateSecret(e.ctx, "sec_x", "v", nil); err == nil || !strings.Contains(err.Error(), "reserves") {
		t.Fatalf("reserved prefix: %v", err)
	}
	if _, err := e.c.CreateSecret(e.ctx, "deploy-token", "v", nil); !e2b.IsConflict(err) {
		t.Fatalf("duplicate: %v", err)
	}
	u, err := e.c.UpdateSecret(e.ctx, s.SecretID, "second", nil)
	if err != nil || u.CurrentVersion != 2 || len(u.Metadata) != 0 {
		t.Fatalf("update = %+v, %v", u, err)
	}
	for _, key := range []string{s.SecretID, "deploy-token"} {
		if g, err := e.c.GetSecret(e.ctx, key); err != nil || g.SecretID != s.SecretID {
			t.Fatalf("get %q = %+v, %v", key, g, err)
		}
	}
	list, err := e.c.ListSecrets(e.ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if err := e.c.DeleteSecret(e.ctx, s.SecretID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.GetSecret(e.ctx, s.SecretID); !e2b.IsNotFound(err) {
		t.Fatalf("get after delete: %v", err)
	}
	if got := e2b.SecretRef("deploy-token"); got != "${e2b.secrets.deploy-token}" {
		t.Fatalf("SecretRef = %q", got)
	}
}
