package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

func TestSecretsCRUDNeverReturnValues(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	st, data, _ := c.api("POST", "/secrets", map[string]any{"name": "Api-Key", "value": "v1-hidden", "metadata": map[string]string{"team": "x"}})
	wantStatus(t, "create", st, data, http.StatusCreated)
	sc := decode[controlplane.SecretJSON](t, data)
	if sc.Name != "api-key" || sc.CurrentVersion != 1 || !strings.HasPrefix(sc.SecretID, "sec_") || sc.Metadata["team"] != "x" {
		t.Fatalf("created %+v", sc)
	}
	for _, bad := range []map[string]any{
		{"name": "api-key", "value": "x"},
		{"name": "sec_x", "value": "x"},
		{"name": "bad name", "value": "x"},
		{"name": "novalue"},
		{"name": "empty", "value": ""},
	} {
		if st, data, _ := c.api("POST", "/secrets", bad); st != http.StatusBadRequest && st != http.StatusConflict {
			t.Errorf("create %v: %d %s", bad, st, data)
		}
	}
	st, data, _ = c.api("POST", "/secrets/api-key", map[string]any{"value": "v2-hidden"})
	wantStatus(t, "update by name", st, data, http.StatusOK)
	if got := decode[controlplane.SecretJSON](t, data); got.CurrentVersion != 2 || got.Metadata["team"] != "x" {
		t.Fatalf("updated %+v", got)
	}
	for _, path := range []string{"/secrets", "/secrets/" + sc.SecretID, "/secrets/api-key"} {
		st, data, _ := c.api("GET", path, nil)
		wantStatus(t, path, st, data, http.StatusOK)
		if strings.Contains(string(data), "hidden") {
			t.Fatalf("%s returned a value: %s", path, data)
		}
	}
	st, data, _ = c.api("DELETE", "/secrets/"+sc.SecretID, nil)
	wantStatus(t, "delete", st, data, http.StatusNoContent)
	st, data, _ = c.api("GET", "/secrets/api-key", nil)
	wantStatus(t, "get deleted", st, data, http.StatusNotFound)
}

func TestEgressProxySubstitutesSecretMarkers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = w.Write([]byte("upstream-ok"))
	}))
	defer upstream.Close()
	c := startTestServer(t, Options{})
	st, data, _ := c.api("POST", "/secrets", map[string]any{"name": "token", "value": "s3cr3t-value"})
	wantStatus(t, "create", st, data, http.StatusCreated)
	sb := c.create(map[string]any{})
	out := c.mustRun(sb, `H='Bearer ${e2b.secrets.token}'; echo "sent: $H"; curl -sS -H "Authorization: $H" `+upstream.URL+`/x`)
	if strings.Contains(out, "s3cr3t") || !strings.Contains(out, "sent: Bearer ${e2b.secrets.token}") || !strings.HasSuffix(out, "upstream-ok") {
		t.Fatalf("command output %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "Bearer s3cr3t-value" {
		t.Fatalf("upstream received %q", got)
	}
	res := c.run(sb, `curl -sS -o /dev/null -w '%{http_code}' -H 'X-K: ${e2b.secrets.nope}' `+upstream.URL)
	if res.stdout != "400" {
		t.Fatalf("unknown secret: %q %q", res.stdout, res.stderr)
	}
}
