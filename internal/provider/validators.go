package provider

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Limits enforced at plan time, so bad input fails before any sandbox is billed.
const (
	minSandboxTimeout   = 1
	maxSandboxTimeout   = 86400 // E2B Pro allows 24 h of continuous life.
	maxMetadataKeyLen   = 256
	maxMetadataValueLen = 2048
	maxMetadataEntries  = 64
	maxTemplateRefLen   = 256
)

// templateRefPattern is `[namespace/]name[:tag]` or a template ID.
var templateRefPattern = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*(:[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// envVarNamePattern is what a POSIX shell accepts as a variable name.
var envVarNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hostnamePattern accepts a DNS name, optionally starting with "*." as E2B allows in allow_out.
var hostnamePattern = regexp.MustCompile(`^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// sandboxIDPattern is what E2B accepts as a sandbox ID: lower-case letters and
// digits, with the legacy "-<clientID>" suffix still allowed.
var sandboxIDPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)?$`)

// checkSandboxID returns "" when s looks like a sandbox ID, else what is wrong.
func checkSandboxID(s string) string {
	if sandboxIDPattern.MatchString(s) {
		return ""
	}
	return fmt.Sprintf("%q is not an E2B sandbox ID (lower-case letters and digits, such as "+
		"\"i3kq0m5x8p2c7v9b1n4z6\"). Use the id of an e2b_sandbox resource or data source.", s)
}

// checkTemplateRef returns "" when s looks like a template ID or name, else what is wrong.
func checkTemplateRef(s string) string {
	switch {
	case s == "":
		return "template must not be empty; use a template ID or a name such as \"base\" or \"my-team/my-template:v2\"."
	case len(s) > maxTemplateRefLen:
		return fmt.Sprintf("template is %d characters long; at most %d are allowed.", len(s), maxTemplateRefLen)
	case !templateRefPattern.MatchString(s):
		return fmt.Sprintf("template %q is not a template ID or name: use letters, digits, '.', '_' and '-', "+
			"in the shape name, namespace/name or namespace/name:tag.", s)
	}
	return ""
}

// checkIPOrCIDR returns "" for an IP address or CIDR prefix.
func checkIPOrCIDR(s string) string {
	if _, err := netip.ParsePrefix(s); err == nil {
		return ""
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return ""
	}
	return fmt.Sprintf("%q is not an IP address or CIDR block (for example 10.0.0.0/8 or 1.1.1.1).", s)
}

// isIPOrCIDR reports whether s is an IP or CIDR, as opposed to a domain.
func isIPOrCIDR(s string) bool { return checkIPOrCIDR(s) == "" }

// checkAllowOutEntry accepts an IP, a CIDR block or a domain (optionally "*.example.com").
func checkAllowOutEntry(s string) string {
	if isIPOrCIDR(s) {
		return ""
	}
	if strings.Contains(s, "/") {
		return fmt.Sprintf("%q is not a valid CIDR block.", s)
	}
	if len(s) > 253 || !hostnamePattern.MatchString(s) || numericTLD(s) {
		return fmt.Sprintf("%q is not an IP address, CIDR block or domain name (for example 8.8.8.8, 10.0.0.0/8, "+
			"example.com or *.example.com).", s)
	}
	return ""
}

// numericTLD reports a name whose last label is all digits: a malformed IP, not a domain.
func numericTLD(s string) bool {
	last := s[strings.LastIndex(s, ".")+1:]
	return strings.Trim(last, "0123456789") == ""
}

// checkHostPort accepts host or host:port in ASCII (mask_request_host).
func checkHostPort(s string) string {
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host = h
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("%q has an invalid port; use host or host:port with a port between 1 and 65535.", s)
		}
	}
	if host == "" || (!hostnamePattern.MatchString(host) && net.ParseIP(host) == nil) || strings.HasPrefix(host, "*.") {
		return fmt.Sprintf("%q is not a host name or host:port in ASCII (for example api.example.com:8080).", s)
	}
	return ""
}

// checkMetadataEntry checks one metadata key and value.
func checkMetadataEntry(k, v string) string {
	switch {
	case k == "":
		return "metadata keys must not be empty."
	case len(k) > maxMetadataKeyLen:
		return fmt.Sprintf("metadata key %q is longer than %d bytes.", k, maxMetadataKeyLen)
	case len(v) > maxMetadataValueLen:
		return fmt.Sprintf("the value of metadata key %q is longer than %d bytes.", k, maxMetadataValueLen)
	case !utf8.ValidString(k) || !utf8.ValidString(v):
		return fmt.Sprintf("metadata key %q or its value is not valid UTF-8.", k)
	case k == e2b.IdempotencyMetadataKey:
		return fmt.Sprintf("metadata key %q is reserved by the provider for safe create retries; use another key.", k)
	}
	return ""
}

// checkHTTPURL accepts absolute http and https URLs.
func checkHTTPURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%q is not an absolute http:// or https:// URL.", s)
	}
	return ""
}

// stringCheckValidator adapts a check function to a string validator.
type stringCheckValidator struct {
	desc    string
	summary string
	check   func(string) string
}

var _ validator.String = stringCheckValidator{}

func (v stringCheckValidator) Description(_ context.Context) string         { return v.desc }
func (v stringCheckValidator) MarkdownDescription(_ context.Context) string { return v.desc }

func (v stringCheckValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(req.ConfigValue.ValueString()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, msg)
	}
}

// templateRefValidator validates a template ID or name.
func templateRefValidator() validator.String {
	return stringCheckValidator{desc: "must be a template ID or name", summary: "Invalid template", check: checkTemplateRef}
}

// httpURLValidator validates an absolute http(s) URL.
func httpURLValidator() validator.String {
	return stringCheckValidator{desc: "must be an absolute http:// or https:// URL", summary: "Invalid URL", check: checkHTTPURL}
}

// sandboxIDValidator validates a sandbox ID.
func sandboxIDValidator() validator.String {
	return stringCheckValidator{desc: "must be an E2B sandbox ID", summary: "Invalid sandbox ID", check: checkSandboxID}
}

// hostPortValidator validates host or host:port.
func hostPortValidator() validator.String {
	return stringCheckValidator{desc: "must be host or host:port", summary: "Invalid host", check: checkHostPort}
}

// setEntriesValidator applies a check to every known element of a set of strings.
type setEntriesValidator struct {
	desc    string
	summary string
	check   func(string) string
}

var _ validator.Set = setEntriesValidator{}

func (v setEntriesValidator) Description(_ context.Context) string         { return v.desc }
func (v setEntriesValidator) MarkdownDescription(_ context.Context) string { return v.desc }

func (v setEntriesValidator) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if msg := v.check(s.ValueString()); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path, v.summary, msg)
		}
	}
}

// mapEntriesValidator checks every known key and value of a map of strings.
type mapEntriesValidator struct {
	desc       string
	summary    string
	maxEntries int
	check      func(k, v string) string
}

var _ validator.Map = mapEntriesValidator{}

func (v mapEntriesValidator) Description(_ context.Context) string         { return v.desc }
func (v mapEntriesValidator) MarkdownDescription(_ context.Context) string { return v.desc }

func (v mapEntriesValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	if v.maxEntries > 0 && len(elems) > v.maxEntries {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary,
			fmt.Sprintf("%d entries given; at most %d are allowed.", len(elems), v.maxEntries))
	}
	for k, e := range elems {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			continue
		}
		if msg := v.check(k, s.ValueString()); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path, v.summary, msg)
		}
	}
}

// metadataValidators validates sandbox metadata maps (resource and provider default_metadata).
func metadataValidators() []validator.Map {
	return []validator.Map{mapEntriesValidator{
		desc:       fmt.Sprintf("at most %d entries; keys 1..%d bytes, values up to %d bytes", maxMetadataEntries, maxMetadataKeyLen, maxMetadataValueLen),
		summary:    "Invalid metadata",
		maxEntries: maxMetadataEntries,
		check:      checkMetadataEntry,
	}}
}

// envVarsValidators validates env_vars names.
func envVarsValidators() []validator.Map {
	return []validator.Map{mapEntriesValidator{
		desc:    "keys must be environment variable names",
		summary: "Invalid environment variable name",
		check: func(k, _ string) string {
			if !envVarNamePattern.MatchString(k) {
				return fmt.Sprintf("%q is not a valid environment variable name: use letters, digits and '_', not starting with a digit.", k)
			}
			return ""
		},
	}}
}

// noTagPattern matches template references without a ":tag" suffix.
var noTagPattern = regexp.MustCompile(`^[^:]*$`)

// checkRFC3339 accepts RFC 3339 timestamps.
func checkRFC3339(s string) string {
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return fmt.Sprintf("%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z.", s)
	}
	return ""
}

// rfc3339Validator validates RFC 3339 timestamps.
func rfc3339Validator() validator.String {
	return stringCheckValidator{desc: "must be an RFC 3339 time", summary: "Invalid time", check: checkRFC3339}
}

// absolutePathPattern matches an absolute path.
var absolutePathPattern = regexp.MustCompile(`^/`)
