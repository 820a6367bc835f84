package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestCheckTemplateRef(t *testing.T) {
	good := []string{"base", "rki5dems9wqfm4r03t7g", "my-team/my-template", "my-team/tpl:v2", "code-interpreter-v1", "a.b_c"}
	bad := []string{"", "has space", "a/b/c", "a::b", "/lead", "tail/", "x:", "ünïcode", strings.Repeat("a", 257)}
	for _, s := range good {
		if msg := checkTemplateRef(s); msg != "" {
			t.Errorf("checkTemplateRef(%q) = %q, want ok", s, msg)
		}
	}
	for _, s := range bad {
		if checkTemplateRef(s) == "" {
			t.Errorf("checkTemplateRef(%q) accepted a bad reference", s)
		}
	}
}

func TestNetworkEntryChecks(t *testing.T) {
	for _, s := range []string{"1.1.1.1", "10.0.0.0/8", "0.0.0.0/0", "2001:db8::/32", "::1"} {
		if msg := checkIPOrCIDR(s); msg != "" {
			t.Errorf("checkIPOrCIDR(%q) = %q", s, msg)
		}
		if msg := checkAllowOutEntry(s); msg != "" {
			t.Errorf("checkAllowOutEntry(%q) = %q", s, msg)
		}
	}
	for _, s := range []string{"example.com", "*.example.com", "localhost", "a-b.c-d.io"} {
		if checkIPOrCIDR(s) == "" {
			t.Errorf("checkIPOrCIDR(%q) accepted a domain", s)
		}
		if msg := checkAllowOutEntry(s); msg != "" {
			t.Errorf("checkAllowOutEntry(%q) = %q", s, msg)
		}
	}
	for _, s := range []string{"10.0.0.0/33", "1.2.3.4/", "bad_host", "-x.com", "a..b", "*.", "ex ample.com", "http://x.com", "1.2.3.999"} {
		if checkAllowOutEntry(s) == "" {
			t.Errorf("checkAllowOutEntry(%q) accepted a bad entry", s)
		}
	}
}

func TestCheckHostPort(t *testing.T) {
	for _, s := range []string{"example.com", "example.com:8080", "localhost:1", "10.0.0.1:443"} {
		if msg := checkHostPort(s); msg != "" {
			t.Errorf("checkHostPort(%q) = %q", s, msg)
		}
	}
	for _, s := range []string{"", "a b", "x.com:0", "x.com:65536", "x.com:port", "*.x.com", ":80"} {
		if checkHostPort(s) == "" {
			t.Errorf("checkHostPort(%q) accepted a bad host", s)
		}
	}
}

func TestCheckMetadataEntry(t *testing.T) {
	if msg := checkMetadataEntry("owner", "me"); msg != "" {
		t.Errorf("valid entry rejected: %s", msg)
	}
	cases := map[string][2]string{
		"empty key":    {"", "v"},
		"long key":     {strings.Repeat("k", maxMetadataKeyLen+1), "v"},
		"long value":   {"k", strings.Repeat("v", maxMetadataValueLen+1)},
		"reserved key": {"e2b-terraform-create-token", "v"},
		"bad utf-8":    {"k", "\xff"},
	}
	for name, c := range cases {
		if checkMetadataEntry(c[0], c[1]) == "" {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestCheckHTTPURLAndRFC3339(t *testing.T) {
	if checkHTTPURL("http://127.0.0.1:3000") != "" || checkHTTPURL("https://api.e2b.app") != "" {
		t.Error("valid URL rejected")
	}
	for _, s := range []string{"api.e2b.app", "ftp://x", "http://", "::"} {
		if checkHTTPURL(s) == "" {
			t.Errorf("checkHTTPURL(%q) accepted", s)
		}
	}
	if checkRFC3339("2026-01-02T15:04:05Z") != "" || checkRFC3339("2026-01-02T15:04:05+02:00") != "" {
		t.Error("valid time rejected")
	}
	if checkRFC3339("2026-01-02") == "" || checkRFC3339("yesterday") == "" {
		t.Error("invalid time accepted")
	}
}

func TestMapEntriesValidator(t *testing.T) {
	v := metadataValidators()[0]
	run := func(m types.Map) int {
		resp := &validator.MapResponse{}
		v.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("metadata"), ConfigValue: m}, resp)
		return resp.Diagnostics.ErrorsCount()
	}
	ok := types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")})
	if n := run(ok); n != 0 {
		t.Errorf("valid map: %d errors", n)
	}
	bad := types.MapValueMust(types.StringType, map[string]attr.Value{"": types.StringValue("b"), "e2b-terraform-create-token": types.StringValue("x")})
	if n := run(bad); n != 2 {
		t.Errorf("bad map: %d errors, want 2", n)
	}
	if n := run(types.MapUnknown(types.StringType)); n != 0 {
		t.Errorf("unknown map: %d errors, want 0", n)
	}
	unknownValue := types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringUnknown()})
	if n := run(unknownValue); n != 0 {
		t.Errorf("map with an unknown value: %d errors, want 0", n)
	}
	big := map[string]attr.Value{}
	for i := range maxMetadataEntries + 1 {
		big[strings.Repeat("k", i+1)] = types.StringValue("v")
	}
	if n := run(types.MapValueMust(types.StringType, big)); n != 1 {
		t.Errorf("too many entries: %d errors, want 1", n)
	}
}

func TestCheckSandboxID(t *testing.T) {
	for _, ok := range []string{"i3kq0m5x8p2c7v9b1n4z6", "abc123", "i3kq0m5x8p2c7v9b1n4z6-6532622b"} {
		if msg := checkSandboxID(ok); msg != "" {
			t.Errorf("checkSandboxID(%q) = %q, want valid", ok, msg)
		}
	}
	for _, bad := range []string{"", "not an id!", "I3KQ", "a_b", "a-b-c", "-abc", "abc-"} {
		if msg := checkSandboxID(bad); !strings.Contains(msg, "is not an E2B sandbox ID") {
			t.Errorf("checkSandboxID(%q) = %q, want a rejection", bad, msg)
		}
	}
}
