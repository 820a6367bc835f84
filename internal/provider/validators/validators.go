package validators

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

// SandboxID validate a sandbox ID.
func SandboxID() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(sandboxIDPattern, "must be an E2B sandbox ID: "+sandboxIDHint)}
}

// CheckSandboxID returns "" when s looks like a sandbox ID, else what is wrong (for import IDs).
func CheckSandboxID(s string) string {
	if sandboxIDPattern.MatchString(s) {
		return ""
	}
	return fmt.Sprintf("%q is not an E2B sandbox ID: an ID has %s.", s, sandboxIDHint)
}

// TemplateRef validate a template ID or name.
func TemplateRef() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, maxTemplateRefLen),
		stringvalidator.RegexMatches(templateRefPattern, "must be a template ID or name: letters, digits, '.', '_' "+
			`and '-' in the shape name, namespace/name or namespace/name:tag, such as "base" or "my-team/my-template:v2"`),
	}
}

// TemplateFilter validate a template used as a filter, which takes no tag.
func TemplateFilter() []validator.String {
	return append(TemplateRef(), stringvalidator.RegexMatches(noTagPattern, "must not contain a :tag"))
}

// Metadata validate sandbox metadata maps (resource and provider default_metadata).
func Metadata() []validator.Map {
	return []validator.Map{
		mapvalidator.SizeAtMost(maxMetadataEntries),
		mapvalidator.KeysAre(
			stringvalidator.LengthBetween(1, maxMetadataKeyLen),
			stringvalidator.NoneOf(e2b.IdempotencyMetadataKey), // The provider's own bookkeeping key.
		),
		mapvalidator.ValueStringsAre(stringvalidator.LengthAtMost(maxMetadataValueLen)),
	}
}

// EnvVars validate the names in a map of environment variables.
func EnvVars() []validator.Map {
	return []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(envVarNamePattern,
		"must be an environment variable name: letters, digits and '_', not starting with a digit"))}
}

// Command refuse a command that is empty or only white space.
func Command() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(notBlankPattern,
		`must contain a shell command to run in the sandbox, for example "make test"`)}
}

// StringRule is one of the provider's own checks, for what no library validator covers; it is
// composed with library validators. check returns "" when s is fine, else the rule it breaks
// ("must be ..."), worded like the library's diagnostics.
type StringRule struct {
	Desc    string
	Summary string
	Check   func(s string) string
	secret  bool // the value is sensitive: the error does not repeat it
}

var _ validator.String = StringRule{}

func (v StringRule) Description(_ context.Context) string         { return v.Desc }
func (v StringRule) MarkdownDescription(_ context.Context) string { return v.Desc }

func (v StringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	msg := v.Check(req.ConfigValue.ValueString())
	switch {
	case msg == "":
	case v.secret:
		resp.Diagnostics.AddAttributeError(req.Path, v.Summary, fmt.Sprintf("Attribute %s %s.", req.Path, msg))
	default:
		resp.Diagnostics.AddAttributeError(req.Path, v.Summary, fmt.Sprintf("Attribute %s %s, got: %q", req.Path, msg, req.ConfigValue.ValueString()))
	}
}

// HTTPURL validates an absolute http(s) URL.
func HTTPURL() validator.String {
	return StringRule{Desc: "must be an absolute http:// or https:// URL", Summary: "Invalid URL", Check: checkHTTPURL}
}

// checkHTTPURL accepts absolute http and https URLs.
func checkHTTPURL(s string) string {
	if _, err := e2b.NormalizeBaseURL(s); err != nil {
		return err.Error()
	}
	return ""
}

// WebhookURL validates where E2B posts webhook events: any absolute http(s) URL, a query
// included, as E2B's dashboard checks it (zod's httpUrl in e2b-dev/dashboard,
// src/core/server/functions/webhooks/schema.ts; E2B's webhook docs set no other rule). Unlike
// api_url it may carry a token, so the attribute is sensitive and the error does not repeat it.
func WebhookURL() validator.String {
	return StringRule{Desc: "must be an absolute http:// or https:// URL", Summary: "Invalid webhook URL", secret: true,
		Check: func(s string) string {
			if err := (e2b.WebhookInput{URL: &s}).Validate(false); err != nil {
				return `must be an absolute http:// or https:// URL, such as "https://example.com/hooks/e2b" ` +
					`(a query such as "?token=..." is allowed)`
			}
			return ""
		}}
}

// WebhookName refuse an empty or blank webhook name, as E2B's dashboard does
// (name: z.string().min(1) in e2b-dev/dashboard, src/core/server/functions/webhooks/schema.ts).
func WebhookName() []validator.String {
	return []validator.String{stringvalidator.RegexMatches(notBlankPattern,
		`must contain a display name such as "sandbox events", or be left out`)}
}

// HostPort validates host or host:port.
func HostPort() validator.String {
	return StringRule{Desc: "must be host or host:port", Summary: "Invalid host", Check: checkHostPort}
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

// AllowOut validate egress allow rules: IPs, CIDR blocks or domains.
func AllowOut() []validator.Set {
	return []validator.Set{setvalidator.ValueStringsAre(StringRule{
		Desc: "IPs, CIDR blocks or domains", Summary: "Invalid allow_out entry", Check: checkAllowOutEntry})}
}

// DenyOut validate egress deny rules: IPs or CIDR blocks.
func DenyOut() []validator.Set {
	return []validator.Set{setvalidator.ValueStringsAre(StringRule{
		Desc: "IPs or CIDR blocks", Summary: "Invalid deny_out entry", Check: checkIPOrCIDR})}
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

// IsIPOrCIDR reports whether s is an IP or CIDR, as opposed to a domain.
func IsIPOrCIDR(s string) bool { return checkIPOrCIDR(s) == "" }

// checkAllowOutEntry accepts an IP, a CIDR block or a domain (optionally "*.example.com").
func checkAllowOutEntry(s string) string {
	if IsIPOrCIDR(s) {
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

// Base64 accepts standard base64, as filebase64() and base64encode() return it.
func Base64() validator.String {
	return StringRule{Desc: "must be standard base64", Summary: "Invalid base64", Check: func(s string) string {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return "must be standard base64 (as filebase64() or base64encode() return; " + err.Error() + ")"
		}
		return ""
	}}
}

// NoControlChars refuses NUL and other control characters, which no sandbox path or
// user name can hold.
func NoControlChars() validator.String {
	return StringRule{Desc: "must not contain control characters", Summary: "Invalid characters", Check: CheckNoControlChars}
}

func CheckNoControlChars(s string) string {
	for i, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("must not contain control characters such as NUL (found %U at byte %d)", r, i)
		}
	}
	return ""
}

// FilePath refuses paths that can only name a directory: empty, "~", "/", or ending
// in "/", "." or "..".
func FilePath() validator.String {
	return StringRule{Desc: "must name a file, not a directory", Summary: "Invalid file path", Check: CheckFilePath}
}

func CheckFilePath(p string) string {
	last := p[strings.LastIndex(p, "/")+1:]
	if strings.TrimSpace(p) == "" || last == "" || last == "." || last == ".." || p == "~" {
		return `must name a file, such as "/home/user/app/config.json" or "~/app/config.json", not a directory`
	}
	return ""
}

// VolumeMounts check each mount path's form; E2B's other mount rules
// (not /, each path once) are checked in ValidateConfig.
func VolumeMounts() []validator.Map {
	return []validator.Map{mapvalidator.ValueStringsAre(
		stringvalidator.RegexMatches(AbsolutePathPattern, "must be an absolute path such as /mnt/data"),
		NoControlChars())}
}

// AbsolutePathPattern matches an absolute path.
var AbsolutePathPattern = regexp.MustCompile(`^/`)

// FromError turns an error-returning check into a StringRule check: the error's text is the rule broken.
func FromError(check func(string) error) func(string) string {
	return func(s string) string {
		if err := check(s); err != nil {
			return err.Error()
		}
		return ""
	}
}
