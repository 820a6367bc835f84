package egress

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The proxy answers for E2B's hyperloop (192.0.2.1 and events.e2b.local, port 80) with the
// sandbox its credentials name, whatever the sandbox's allowOut, denyOut and egressProxy say,
// and never dials out for it; without a sandbox's credentials it refuses as for any host.
func TestProxyAnswersHyperloopForTheSandboxItsCredentialsName(t *testing.T) {
	t.Parallel()
	tokens := map[string]string{"sbx-one": "tok-one", "sbx-two": "tok-two"}
	closed := &Proxy{Address: "127.0.0.1:1"} // a SOCKS5 proxy that is never there
	srv, err := Start(func(id, token string) (*Policy, bool) {
		if tokens[id] == "" || tokens[id] != token {
			return nil, false
		}
		// The internet is blocked and every connection would go through a dead proxy.
		return &Policy{DenyOut: []string{"0.0.0.0/0"}, Proxy: closed}, true
	}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	do := func(user *url.Userinfo, method, target, body string) (int, string, string) {
		t.Helper()
		proxy, _ := url.Parse(srv.URL())
		proxy.User = user
		hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 10 * time.Second}
		req, _ := http.NewRequest(method, target, strings.NewReader(body))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
	}
	one, two := url.UserPassword("sbx-one", "tok-one"), url.UserPassword("sbx-two", "tok-two")
	for _, target := range []string{"http://192.0.2.1/me", "http://events.e2b.local/me", "http://EVENTS.e2b.local.:80/me"} {
		for user, id := range map[*url.Userinfo]string{one: "sbx-one", two: "sbx-two"} {
			st, ct, body := do(user, "GET", target, "")
			if st != http.StatusOK || ct != "application/json; charset=utf-8" || body != `{"sandboxID":"`+id+`"}` {
				t.Errorf("GET %s as %s: %d %q %s", target, id, st, ct, body)
			}
		}
	}
	cases := []struct {
		user                 *url.Userinfo
		method, target, body string
		status               int
		want                 string
	}{
		{nil, "GET", "http://192.0.2.1/me", "", http.StatusProxyAuthRequired, "name no sandbox"},
		{url.UserPassword("sbx-one", "tok-two"), "GET", "http://events.e2b.local/me", "", http.StatusProxyAuthRequired, "name no sandbox"},
		{one, "POST", "http://192.0.2.1/logs", `{"instanceID":"sbx-one","message":"hello"}`, http.StatusOK, ""},
		{one, "POST", "http://192.0.2.1/logs", `{"instanceID":"sbx-two","message":"into another's logs"}`, http.StatusBadRequest,
			`{"code":400,"message":"Invalid sandboxID in logs payload"}`},
		{one, "POST", "http://192.0.2.1/logs", `{"message":"no instance"}`, http.StatusBadRequest, `"Invalid sandboxID in logs payload"`},
		{one, "POST", "http://192.0.2.1/logs", `not json`, http.StatusBadRequest, `{"code":400,"message":"Invalid body for logs"}`},
		{one, "POST", "http://192.0.2.1/me", "", http.StatusBadRequest, "method not allowed"},
		{one, "GET", "http://events.e2b.local/other", "", http.StatusBadRequest, "no matching operation was found"},
		{one, "GET", "http://192.0.2.1:8080/me", "", http.StatusBadGateway, "connection refused"},
	}
	for _, c := range cases {
		st, _, body := do(c.user, c.method, c.target, c.body)
		if st != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %s as %v: %d %s, want %d with %q", c.method, c.target, c.user, st, body, c.status, c.want)
		}
	}

	// HTTPS (a CONNECT tunnel) finds no server there, at once: the proxy dials nothing.
	req, _ := http.NewRequest(http.MethodConnect, srv.URL(), nil)
	req.Host = "events.e2b.local:443"
	req.SetBasicAuth("sbx-one", "tok-one")
	req.Header.Set("Proxy-Authorization", req.Header.Get("Authorization"))
	req.Header.Del("Authorization")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(data), "192.0.2.1:443: connect: connection refused") {
		t.Errorf("CONNECT events.e2b.local:443: %d %s", resp.StatusCode, data)
	}
}
