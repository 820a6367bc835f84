package validators

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// stringErrors runs string validators as the framework does and counts the errors.
func stringErrors(vs []validator.String, v types.String) int {
	resp := &validator.StringResponse{}
	for _, vr := range vs {
		vr.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: v}, resp)
	}
	return resp.Diagnostics.ErrorsCount()
}

// mapErrors runs map validators as the framework does and counts the errors.
func mapErrors(vs []validator.Map, m types.Map) int {
	resp := &validator.MapResponse{}
	for _, v := range vs {
		v.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("metadata"), ConfigValue: m}, resp)
	}
	return resp.Diagnostics.ErrorsCount()
}

func TestTemplateRefValidators(t *testing.T) {
	good := []string{"base", "rki5dems9wqfm4r03t7g", "my-team/my-template", "my-team/tpl:v2", "code-interpreter-v1", "a.b_c"}
	bad := []string{"", "has space", "a/b/c", "a::b", "/lead", "tail/", "x:", "ünïcode", strings.Repeat("a", 257)}
	for _, s := range good {
		if n := stringErrors(TemplateRef(), types.StringValue(s)); n != 0 {
			t.Errorf("template %q: %d errors, want none", s, n)
		}
	}
	for _, s := range bad {
		if stringErrors(TemplateRef(), types.StringValue(s)) == 0 {
			t.Errorf("template %q accepted", s)
		}
	}
	if stringErrors(TemplateFilter(), types.StringValue("my-team/tpl:v2")) == 0 {
		t.Error("a template filter with a tag was accepted")
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

func TestCheckHTTPURL(t *testing.T) {
	if checkHTTPURL("http://127.0.0.1:3000") != "" || checkHTTPURL("https://api.e2b.app") != "" {
		t.Error("valid URL rejected")
	}
	for _, s := range []string{"api.e2b.app", "ftp://x", "http://", "::"} {
		if checkHTTPURL(s) == "" {
			t.Errorf("checkHTTPURL(%q) accepted", s)
		}
	}
}

func TestMetadataValidators(t *testing.T) {
	ok := types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")})
	if n := mapErrors(Metadata(), ok); n != 0 {
		t.Errorf("valid map: %d errors", n)
	}
	bad := types.MapValueMust(types.StringType, map[string]attr.Value{
		"":                                       types.StringValue("b"),
		"e2b-terraform-create-token":             types.StringValue("x"),
		strings.Repeat("k", maxMetadataKeyLen+1): types.StringValue("v"),
		"long":                                   types.StringValue(strings.Repeat("v", maxMetadataValueLen+1)),
	})
	if n := mapErrors(Metadata(), bad); n != 4 {
		t.Errorf("bad map: %d errors, want 4 (empty key, reserved key, long key, long value)", n)
	}
	if n := mapErrors(Metadata(), types.MapUnknown(types.StringType)); n != 0 {
		t.Errorf("unknown map: %d errors, want 0", n)
	}
	unknownValue := types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringUnknown()})
	if n := mapErrors(Metadata(), unknownValue); n != 0 {
		t.Errorf("map with an unknown value: %d errors, want 0", n)
	}
	big := map[string]attr.Value{}
	for i := range maxMetadataEntries + 1 {
		big[strings.Repeat("k", i+1)] = types.StringValue("v")
	}
	if n := mapErrors(Metadata(), types.MapValueMust(types.StringType, big)); n != 1 {
		t.Errorf("too many entries: %d errors, want 1", n)
	}
}

func TestEnvVarsValidators(t *testing.T) {
	good := types.MapValueMust(types.StringType, map[string]attr.Value{"_A1": types.StringValue("v"), "PATH": types.StringValue("x")})
	if n := mapErrors(EnvVars(), good); n != 0 {
		t.Errorf("valid names: %d errors", n)
	}
	bad := types.MapValueMust(types.StringType, map[string]attr.Value{"1BAD": types.StringValue("v"), "A-B": types.StringValue("v")})
	if n := mapErrors(EnvVars(), bad); n != 2 {
		t.Errorf("bad names: %d errors, want 2", n)
	}
}

func TestCheckSandboxID(t *testing.T) {
	for _, ok := range []string{"i3kq0m5x8p2c7v9b1n4z6", "abc123", "i3kq0m5x8p2c7v9b1n4z6-6532622b"} {
		if msg := CheckSandboxID(ok); msg != "" {
			t.Errorf("checkSandboxID(%q) = %q, want valid", ok, msg)
		}
		if n := stringErrors(SandboxID(), types.StringValue(ok)); n != 0 {
			t.Errorf("sandbox ID %q: %d errors", ok, n)
		}
	}
	for _, bad := range []string{"", "not an id!", "I3KQ", "a_b", "a-b-c", "-abc", "abc-", "abc\x00"} {
		if msg := CheckSandboxID(bad); !strings.Contains(msg, "is not an E2B sandbox ID") {
			t.Errorf("checkSandboxID(%q) = %q, want a rejection", bad, msg)
		}
		if stringErrors(SandboxID(), types.StringValue(bad)) == 0 {
			t.Errorf("sandbox ID %q accepted", bad)
		}
	}
}

// Paths that can only name a directory, and control characters, are refused before any request.
func TestFilePathChecks(t *testing.T) {
	for _, ok := range []string{"a.txt", "~/a.txt", "/home/user/a.txt", "./a.txt", "dir/.hidden", "/tmp/../etc/x.conf"} {
		if msg := CheckFilePath(ok) + CheckNoControlChars(ok); msg != "" {
			t.Errorf("path %q refused: %s", ok, msg)
		}
	}
	for _, dir := range []string{"", " ", ".", "..", "/", "~", "a/", "/tmp/..", "/tmp/.", "x/.."} {
		if CheckFilePath(dir) == "" {
			t.Errorf("path %q names a directory but was accepted", dir)
		}
	}
	for _, ctl := range []string{"a\x00b", "line\nbreak", "tab\there", "del\x7f"} {
		if CheckNoControlChars(ctl) == "" {
			t.Errorf("path %q with a control character was accepted", ctl)
		}
	}
}

func TestDurationRange(t *testing.T) {
	v := []validator.String{WholeSecondsBetween(time.Second, 24*time.Hour)}
	for _, ok := range []string{"1s", "15m", "2h30m", "24h", "86400s"} {
		if n := stringErrors(v, types.StringValue(ok)); n != 0 {
			t.Errorf("%q: %d errors, want none", ok, n)
		}
	}
	for _, bad := range []string{"0s", "500ms", "1500ms", "24h0m1s", "-5m"} {
		if stringErrors(v, types.StringValue(bad)) != 1 {
			t.Errorf("%q accepted", bad)
		}
	}
	// Bad syntax is the range's to report, once (the type accepts any string).
	if n := stringErrors(v, types.StringValue("ten minutes")); n != 1 {
		t.Errorf("bad syntax: %d errors, want 1", n)
	}
	if got := convert.ShortDuration(24 * time.Hour); got != "24h" {
		t.Errorf("shortDuration(24h) = %q", got)
	}
	if got := convert.ShortDuration(90 * time.Second); got != "1m30s" {
		t.Errorf("shortDuration(90s) = %q", got)
	}
}

// The webhook URL is sensitive: its error never repeats it.
func TestWebhookURLValidator(t *testing.T) {
	v := WebhookURL()
	for _, ok := range []string{"https://example.com/hook", "http://10.0.0.1:8080/h?token=abc&x=1", "https://u:p@example.com/h#f"} {
		if n := stringErrors([]validator.String{v}, types.StringValue(ok)); n != 0 {
			t.Errorf("%q: %d errors, want none", ok, n)
		}
	}
	for _, bad := range []string{"ftp://example.com/h?token=SECRET1", "example.com/h?token=SECRET1", "https:///h?token=SECRET1"} {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("url"), ConfigValue: types.StringValue(bad)}, resp)
		if resp.Diagnostics.ErrorsCount() != 1 {
			t.Errorf("%q: %d errors, want 1", bad, resp.Diagnostics.ErrorsCount())
			continue
		}
		if d := resp.Diagnostics[0].Detail(); strings.Contains(d, "SECRET1") {
			t.Errorf("the error repeats the URL: %s", d)
		}
	}
}
