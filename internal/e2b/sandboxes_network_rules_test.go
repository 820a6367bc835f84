package e2b

import (
	"strings"
	"testing"
)

func TestValidateRuleDomain(t *testing.T) {
	for domain, want := range map[string]string{
		"api.example.com":   "",
		"*.example.com":     "",
		"a.b.c.example.com": "",
		"API.example.com":   `write "api.example.com"`,
		"*":                 "must be a domain",
		"*.com":             "",
		"example":           "",
		"*.*.example.com":   "must be a domain",
		"api.example.com:8": "must be a domain",
		"10.0.0.1":          "",
		"api.example.com/x": "must be a domain",
	} {
		err := ValidateRuleDomain(domain)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", domain, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: got %v, want %q", domain, err, want)
		}
	}
}

func TestRuleDomainAdmitted(t *testing.T) {
	allow := []string{"api.example.com", "*.internal.example.org", "1.1.1.1"}
	for domain, want := range map[string]bool{
		"api.example.com":          true,
		"www.example.com":          false,
		"example.com":              false,
		"a.internal.example.org":   true,
		"a.b.internal.example.org": true,
		"internal.example.org":     false, // a wildcard does not cover its apex
		"*.internal.example.org":   true,
		"*.a.internal.example.org": true,
		"*.example.org":            false,
	} {
		if got := RuleDomainAdmitted(domain, allow); got != want {
			t.Errorf("%q admitted by %v: got %v, want %v", domain, allow, got, want)
		}
	}
}

func TestValidateRuleHeaders(t *testing.T) {
	tokens := []string{"aws"}
	for _, c := range []struct {
		headers map[string]string
		want    string
	}{
		{map[string]string{"Authorization": "Bearer " + SecretRef("openai-key")}, ""},
		{map[string]string{"Authorization": "Bearer " + IdentityRef("aws")}, ""},
		{map[string]string{"X-Both": SecretRef("a") + ":" + IdentityRef("aws")}, ""},
		{map[string]string{"X-Literal": "${HOME} stays as it is"}, ""},
		{map[string]string{"Authorization": "Bearer " + IdentityRef("gcp")}, `names the workload token "gcp", which the sandbox's iam does not declare`},
		{map[string]string{"Authorization": "${e2b.secrets.no/slash}"}, "names no possible secret"},
		{map[string]string{"Authorization": "${e2b.secrets.open"}, "has no closing '}'"},
		{map[string]string{"Authorization": "${e2b.env.HOME}"}, "is neither"},
		{map[string]string{"Bad Header": "x"}, "not a valid HTTP header name"},
		{map[string]string{"X-Split": "a\r\nInjected: yes"}, "line breaks"},
		{map[string]string{}, "at least one header"},
	} {
		err := ValidateRuleHeaders(c.headers, tokens)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.headers, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want %q", c.headers, err, c.want)
		}
	}
}

func TestValidateEgressProxy(t *testing.T) {
	for _, c := range []struct {
		p    EgressProxy
		want string
	}{
		{EgressProxy{Address: "proxy.example.com:1080"}, ""},
		{EgressProxy{Address: "10.0.0.1:1080", Username: "u", Password: "p"}, ""},
		{EgressProxy{Address: "[::1]:1080"}, ""},
		{EgressProxy{Address: "proxy.example.com"}, "must be host:port"},
		{EgressProxy{Address: "proxy.example.com:0"}, "port between 1 and 65535"},
		{EgressProxy{Address: ":1080"}, "must be host:port"},
		{EgressProxy{Address: "p:1080", Password: "p"}, "needs a username"},
		{EgressProxy{Address: "p:1080", Username: strings.Repeat("u", 256)}, "at most 255 bytes"},
	} {
		err := ValidateEgressProxy(c.p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.p, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want %q", c.p, err, c.want)
		}
	}
}

func TestValidateRuleHeaderNames(t *testing.T) {
	if err := ValidateRuleHeaderNames([]string{"Authorization", "X-Key"}); err != nil {
		t.Errorf("distinct names: %v", err)
	}
	err := ValidateRuleHeaderNames([]string{"X-Key", "authorization", "Authorization"})
	if err == nil || !strings.Contains(err.Error(), `"Authorization" and "authorization"`) {
		t.Errorf("names differing in case: got %v", err)
	}
}
