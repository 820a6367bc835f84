package egress

import (
	"context"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/socks5test"
)

func TestMatchPrefersExactThenLongestWildcard(t *testing.T) {
	rule := func(v string) []Rule { return []Rule{{Transform: &Transform{Headers: map[string]string{"X": v}}}} }
	rules := map[string][]Rule{"api.example.com": rule("exact"), "*.example.com": rule("wide"), "*.eu.example.com": rule("narrow")}
	for host, want := range map[string]string{
		"api.example.com": "exact", "API.Example.com.": "exact", "www.example.com": "wide",
		"a.eu.example.com": "narrow", "example.com": "", "other.org": "",
	} {
		got := ""
		if rs := Match(rules, host); rs != nil {
			got = rs[0].Transform.Headers["X"]
		}
		if got != want {
			t.Errorf("%s: got rule %q, want %q", host, got, want)
		}
	}
}

func TestFillPlaceholders(t *testing.T) {
	l := Lookup{
		Secret:   func(n string) (string, bool) { return map[string]string{"key": "s3cret"}[n], n == "key" },
		Identity: func(n string) (string, bool) { return "token-for-" + n, n == "aws" },
	}
	got, err := Fill("Bearer ${e2b.secrets.key} ${e2b.identity.tokens.aws} ${HOME}", l)
	if err != nil || got != "Bearer s3cret token-for-aws ${HOME}" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := Fill("${e2b.secrets.nope}", l); err == nil || !strings.Contains(err.Error(), "secret 'nope' does not exist") {
		t.Fatalf("unknown secret: %v", err)
	}
	if _, err := Fill("${e2b.identity.tokens.gcp}", l); err == nil || !strings.Contains(err.Error(), "'gcp'") {
		t.Fatalf("unknown token: %v", err)
	}
}

func TestAdmits(t *testing.T) {
	allow, deny := []string{"api.example.com", "*.pythonhosted.org", "1.1.1.1", "10.1.0.0/16"}, []string{"0.0.0.0/0"}
	ip := netip.MustParseAddr
	for _, c := range []struct {
		host string
		addr netip.Addr
		want bool
	}{
		{"api.example.com", ip("93.184.216.34"), true},
		{"files.pythonhosted.org", netip.Addr{}, true},
		{"pythonhosted.org", netip.Addr{}, false},
		{"1.1.1.1", netip.Addr{}, true},
		{"10.1.2.3", netip.Addr{}, true},
		{"8.8.8.8", netip.Addr{}, false},
		{"evil.example.org", ip("8.8.8.8"), false},
	} {
		if got := Admits(allow, deny, c.host, c.addr); got != c.want {
			t.Errorf("%s (%v): got %v, want %v", c.host, c.addr, got, c.want)
		}
	}
	if !Admits(nil, nil, "anything.example", netip.Addr{}) {
		t.Error("without rules everything is allowed")
	}
	if Admits(nil, []string{"10.0.0.0/8"}, "10.2.3.4", netip.Addr{}) {
		t.Error("a denied address is not admitted")
	}
}

func TestValidate(t *testing.T) {
	many := map[string][]Rule{}
	for _, d := range []string{"a.x", "b.x", "c.x", "d.x", "e.x", "f.x", "g.x", "h.x", "i.x", "j.x", "k.x"} {
		many[d] = []Rule{{}}
	}
	for _, c := range []struct {
		rules map[string][]Rule
		want  string
	}{
		{map[string][]Rule{"api.example.com": {{}}}, ""},
		{many, "at most 10 domains"},
		{map[string][]Rule{"api.example.com": {{}, {}}}, "at most 1 rule per domain"},
		{map[string][]Rule{"*": {{}}}, "invalid domain"},
	} {
		if got := Validate(c.rules); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%v: got %q, want %q", c.rules, got, c.want)
		}
	}
	if msg := ValidateProxy(&Proxy{Address: "proxy:1080"}); msg != "" {
		t.Error(msg)
	}
	if msg := ValidateProxy(&Proxy{Address: "proxy"}); !strings.Contains(msg, "host:port") {
		t.Errorf("no port: %q", msg)
	}
}

// Through a SOCKS5 server with a login: the connection reaches its destination, named by host.
func TestDialSOCKS5(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, _ = c.Write([]byte("hello"))
			_ = c.Close()
		}
	}()
	srv, err := socks5test.Start("user", "pass")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	c, err := DialSOCKS5(context.Background(), Proxy{Address: srv.Address(), Username: "user", Password: "pass"}, "localhost:"+port)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	if string(b) != "hello" || srv.Destinations()[0] != "localhost:"+port || srv.Logins()[0] != "user:pass" {
		t.Fatalf("read %q; proxy saw %v, logins %v", b, srv.Destinations(), srv.Logins())
	}
	if _, err := DialSOCKS5(context.Background(), Proxy{Address: srv.Address(), Username: "user", Password: "wrong"}, "localhost:"+port); err == nil ||
		!strings.Contains(err.Error(), "refused the username and password") {
		t.Fatalf("wrong password: %v", err)
	}
}
