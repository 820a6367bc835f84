package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Limits enforced at plan time, so bad input fails before any sandbox is billed.
const (
	maxMetadataKeyLen   = 256
	maxMetadataValueLen = 2048
	maxMetadataEntries  = 64
	maxTemplateRefLen   = 256
)

// templateRefPattern is `[namespace/]name[:tag]` or a template ID.
var templateRefPattern = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*(:[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// noTagPattern matches template references without a ":tag" suffix.
var noTagPattern = regexp.MustCompile(`^[^:]*$`)

// envVarNamePattern is what a POSIX shell accepts as a variable name.
var envVarNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hostnamePattern accepts a DNS name, optionally starting with "*." as E2B allows in allow_out.
var hostnamePattern = regexp.MustCompile(`^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// sandboxIDPattern is what E2B accepts as a sandbox ID: lower-case letters and
// digits, with the legacy "-<clientID>" suffix still allowed.
var sandboxIDPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)?$`)

// notBlankPattern matches a string with something other than white space.
var notBlankPattern = regexp.MustCompile(`\S`)

// sandboxIDHint says what a sandbox ID looks like and where to take one from.
const sandboxIDHint = `lower-case letters and digits, such as "i3kq0m5x8p2c7v9b1n4z6" ` +
	`(use the id of an e2b_sandbox resource or data source)`

// sandboxIDValidators validate a sandbox ID.
func sandboxIDValidators() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(sandboxIDPattern, "must be an E2B sandbox ID: "+sandboxIDHint)}
}

// checkSandboxID returns "" when s looks like a sandbox ID, else what is wrong (for import IDs).
func checkSandboxID(s string) string {
	if sandboxIDPattern.MatchString(s) {
		return ""
	}
	return fmt.Sprintf("%q is not an E2B sandbox ID: an ID has %s.", s, sandboxIDHint)
}

// templateRefValidators validate a template ID or name.
func templateRefValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, maxTemplateRefLen),
		stringvalidator.RegexMatches(templateRefPattern, "must be a template ID or name: letters, digits, '.', '_' "+
			`and '-' in the shape name, namespace/name or namespace/name:tag, such as "base" or "my-team/my-template:v2"`),
	}
}

// templateFilterValidators validate a template used as a filter, which takes no tag.
func templateFilterValidators() []validator.String {
	return append(templateRefValidators(), stringvalidator.RegexMatches(noTagPattern, "must not contain a :tag"))
}

// metadataValidators validate sandbox metadata maps (resource and provider default_metadata).
func metadataValidators() []validator.Map {
	return []validator.Map{
		mapvalidator.SizeAtMost(maxMetadataEntries),
		mapvalidator.KeysAre(
			stringvalidator.LengthBetween(1, maxMetadataKeyLen),
			stringvalidator.NoneOf(e2b.IdempotencyMetadataKey), // The provider's own bookkeeping key.
		),
		mapvalidator.ValueStringsAre(stringvalidator.LengthAtMost(maxMetadataValueLen)),
	}
}

// envVarsValidators validate the names in a map of environment variables.
func envVarsValidators() []validator.Map {
	return []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(envVarNamePattern,
		"must be an environment variable name: letters, digits and '_', not starting with a digit"))}
}

// commandValidators refuse a command that is empty or only white space.
func commandValidators() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(notBlankPattern,
		`must contain a shell command to run in the sandbox, for example "make test"`)}
}

// stringRule is one of the provider's own checks, for what no library validator covers; it is
// composed with library validators. check returns "" when s is fine, else the rule it breaks
// ("must be ..."), worded like the library's diagnostics.
type stringRule struct {
	desc    string
	summary string
	check   func(s string) string
	secret  bool // the value is sensitive: the error does not repeat it
}

var _ validator.String = stringRule{}

func (v stringRule) Description(_ context.Context) string         { return v.desc }
func (v stringRule) MarkdownDescription(_ context.Context) string { return v.desc }

func (v stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	msg := v.check(req.ConfigValue.ValueString())
	switch {
	case msg == "":
	case v.secret:
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, fmt.Sprintf("Attribute %s %s.", req.Path, msg))
	default:
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, fmt.Sprintf("Attribute %s %s, got: %q", req.Path, msg, req.ConfigValue.ValueString()))
	}
}

// httpURLValidator validates an absolute http(s) URL.
func httpURLValidator() validator.String {
	return stringRule{desc: "must be an absolute http:// or https:// URL", summary: "Invalid URL", check: checkHTTPURL}
}

// checkHTTPURL accepts absolute http and https URLs.
func checkHTTPURL(s string) string {
	if _, err := e2b.NormalizeBaseURL(s); err != nil {
		return err.Error()
	}
	return ""
}

// webhookURLValidator validates where E2B posts webhook events: any absolute http(s) URL, a query
// included, as E2B's dashboard checks it (zod's httpUrl in e2b-dev/dashboard,
// src/core/server/functions/webhooks/schema.ts; E2B's webhook docs set no other rule). Unlike
// api_url it may carry a token, so the attribute is sensitive and the error does not repeat it.
func webhookURLValidator() validator.String {
	return stringRule{desc: "must be an absolute http:// or https:// URL", summary: "Invalid webhook URL", secret: true,
		check: func(s string) string {
			if err := (e2b.WebhookInput{URL: &s}).Validate(false); err != nil {
				return `must be an absolute http:// or https:// URL, such as "https://example.com/hooks/e2b" ` +
					`(a query such as "?token=..." is allowed)`
			}
			return ""
		}}
}

// webhookNameValidators refuse an empty or blank webhook name, as E2B's dashboard does
// (name: z.string().min(1) in e2b-dev/dashboard, src/core/server/functions/webhooks/schema.ts).
func webhookNameValidators() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(notBlankPattern,
		`must contain a display name such as "sandbox events", or be left out`)}
}

// hostPortValidator validates host or host:port.
func hostPortValidator() validator.String {
	return stringRule{desc: "must be host or host:port", summary: "Invalid host", check: checkHostPort}
}

// checkHostPort accepts host or host:port in ASCII (mask_request_host).
func checkHostPort(s string) string {
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host = h
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "must be host or host:port with a port between 1 and 65535"
		}
	}
	if host == "" || (!hostnamePattern.MatchString(host) && net.ParseIP(host) == nil) || strings.HasPrefix(host, "*.") {
		return "must be a host name or host:port in ASCII (for example api.example.com:8080)"
	}
	return ""
}

// allowOutValidators validate egress allow rules: IPs, CIDR blocks or domains.
func allowOutValidators() []validator.Set {
	return []validator.Set{setvalidator.ValueStringsAre(stringRule{
		desc: "IPs, CIDR blocks or domains", summary: "Invalid allow_out entry", check: checkAllowOutEntry})}
}

// denyOutValidators validate egress deny rules: IPs or CIDR blocks.
func denyOutValidators() []validator.Set {
	return []validator.Set{setvalidator.ValueStringsAre(stringRule{
		desc: "IPs or CIDR blocks", summary: "Invalid deny_out entry", check: checkIPOrCIDR})}
}

// checkIPOrCIDR returns "" for an IP address or CIDR prefix.
func checkIPOrCIDR(s string) string {
	if _, err := netip.ParsePrefix(s); err == nil {
		return ""
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return ""
	}
	return "must be an IP address or CIDR block (for example 10.0.0.0/8 or 1.1.1.1)"
}

// isIPOrCIDR reports whether s is an IP or CIDR, as opposed to a domain.
func isIPOrCIDR(s string) bool { return checkIPOrCIDR(s) == "" }

// checkAllowOutEntry accepts an IP, a CIDR block or a domain (optionally "*.example.com").
func checkAllowOutEntry(s string) string {
	if isIPOrCIDR(s) {
		return ""
	}
	if strings.Contains(s, "/") {
		return "must be a valid CIDR block (for example 10.0.0.0/8)"
	}
	if len(s) > 253 || !hostnamePattern.MatchString(s) || numericTLD(s) {
		return "must be an IP address, CIDR block or domain name (for example 8.8.8.8, 10.0.0.0/8, " +
			"example.com or *.example.com)"
	}
	return ""
}

// numericTLD reports a name whose last label is all digits: a malformed IP, not a domain.
func numericTLD(s string) bool {
	last := s[strings.LastIndex(s, ".")+1:]
	return strings.Trim(last, "0123456789") == ""
}

// base64Validator accepts standard base64, as filebase64() and base64encode() return it.
func base64Validator() validator.String {
	return stringRule{desc: "must be standard base64", summary: "Invalid base64", check: func(s string) string {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return "must be standard base64 (as filebase64() or base64encode() return; " + err.Error() + ")"
		}
		return ""
	}}
}

// noControlCharsValidator refuses NUL and other control characters, which no sandbox path or
// user name can hold.
func noControlCharsValidator() validator.String {
	return stringRule{desc: "must not contain control characters", summary: "Invalid characters", check: checkNoControlChars}
}

func checkNoControlChars(s string) string {
	for i, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("must not contain control characters such as NUL (found %U at byte %d)", r, i)
		}
	}
	return ""
}

// filePathValidator refuses paths that can only name a directory: empty, "~", "/", or ending
// in "/", "." or "..".
func filePathValidator() validator.String {
	return stringRule{desc: "must name a file, not a directory", summary: "Invalid file path", check: checkFilePath}
}

func checkFilePath(p string) string {
	last := p[strings.LastIndex(p, "/")+1:]
	if strings.TrimSpace(p) == "" || last == "" || last == "." || last == ".." || p == "~" {
		return `must name a file, such as "/home/user/app/config.json" or "~/app/config.json", not a directory`
	}
	return ""
}

// volumeMountsValidators check each mount path's form; E2B's other mount rules
// (not /, each path once) are checked in ValidateConfig.
func volumeMountsValidators() []validator.Map {
	return []validator.Map{mapvalidator.ValueStringsAre(
		stringvalidator.RegexMatches(absolutePathPattern, "must be an absolute path such as /mnt/data"),
		noControlCharsValidator())}
}

// absolutePathPattern matches an absolute path.
var absolutePathPattern = regexp.MustCompile(`^/`)
