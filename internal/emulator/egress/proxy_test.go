package egress_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// The egress proxy fills a secret only where a sandbox's network rule puts it, for the rule's
// domain: a placeholder a process writes into its own request is sent as written, to the rule's
// domain or any other, and a client without a sandbox's proxy credentials is refused.
func TestEgressProxyFillsSecretsOnlyWhereRulesPutThem(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]string{}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		_, _ = w.Write([]byte("upstream-ok"))
	}))
	defer upstream.Close()
	port := upstream.URL[strings.LastIndex(upstream.URL, ":")+1:]
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/secrets", map[string]any{"name": "token", "value": "s3cr3t-value"})
	emulatortest.WantStatus(t, "create", st, data, http.StatusCreated)
	const marker = "Bearer ${e2b.secrets.token}"
	ruled := c.Create(map[string]any{"network": map[string]any{
		"allowOut": []string{"localhost", "127.0.0.1"}, "denyOut": []string{"0.0.0.0/0"},
		"rules": map[string]any{"localhost": []any{map[string]any{"transform": map[string]any{
			"headers": map[string]string{"Authorization": marker}}}}},
	}})
	plain := c.Create(map[string]any{})
	c.MustRun(ruled, `curl -sS -o /dev/null http://localhost:`+port+`/rule`)
	c.MustRun(ruled, `curl -sS -o /dev/null -H 'Authorization: `+marker+`' http://127.0.0.1:`+port+`/ruled-other-domain`)
	c.MustRun(plain, `curl -sS -o /dev/null -H 'Authorization: `+marker+`' http://localhost:`+port+`/no-rule`)
	mu.Lock()
	want := map[string]string{"/rule": "Bearer s3cr3t-value", "/ruled-other-domain": marker, "/no-rule": marker}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: upstream received Authorization %q, want %q", path, got[path], w)
		}
	}
	mu.Unlock()

	// From the host: no credentials, and credentials that name no sandbox.
	proxyURL, _ := url.Parse(c.Srv.EgressURL())
	for _, user := range []*url.Userinfo{nil, url.UserPassword(plain.SandboxID, "not-its-token"), url.UserPassword("no-such-sandbox", "x")} {
		u := *proxyURL
		u.User = user
		hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&u)}, Timeout: 30 * time.Second}
		req, _ := http.NewRequest("GET", upstream.URL+"/from-host", nil)
		req.Header.Set("Authorization", marker)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusProxyAuthRequired {
			t.Errorf("host request with proxy user %v: status %d, want 407", user, resp.StatusCode)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if v, ok := got["/from-host"]; ok {
		t.Errorf("a host request without a sandbox's credentials reached the upstream with %q", v)
	}
}
