package e2b

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// E2B's limits on network rules (its API refuses more).
const (
	MaxRuleDomains       = 10
	MaxRulesPerDomain    = 1
	MaxHeadersPerRule    = 20
	MaxEgressProxyCred   = 255
	secretPlaceholder    = "e2b.secrets."
	identityPlaceholder  = "e2b.identity.tokens."
	placeholderNamespace = "${e2b."
)

// ruleDomainPattern is an exact DNS name or one with a single leading "*." (lower case: E2B
// lower-cases rule domains when it stores them, so anything else would read back changed).
var ruleDomainPattern = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// HeaderNamePattern is an HTTP field name (RFC 9110 token).
var HeaderNamePattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// IdentityRef is the placeholder E2B's egress proxy replaces with a freshly minted workload
// token of the sandbox's iam token name.
func IdentityRef(name string) string { return "${" + identityPlaceholder + name + "}" }

// ValidateRuleDomain applies E2B's rule for a network rule's key: a DNS name, or one with a
// leading wildcard that matches its subdomains at any depth (not the apex); never a bare "*".
func ValidateRuleDomain(domain string) error {
	if domain != strings.ToLower(domain) {
		return fmt.Errorf("must be lower case (E2B stores rule domains in lower case): write %q", strings.ToLower(domain))
	}
	if !ruleDomainPattern.MatchString(domain) {
		return fmt.Errorf("must be a domain such as \"api.example.com\" or \"*.example.com\" (no bare \"*\", IP address, port or path)")
	}
	return nil
}

// RuleDomainAdmitted reports whether allowOut lets the sandbox reach a rule's domain: E2B
// applies rules only to traffic that allowOut admits, by the same domain or a wildcard
// covering it.
func RuleDomainAdmitted(domain string, allowOut []string) bool {
	base, wildcard := strings.CutPrefix(domain, "*.")
	for _, a := range allowOut {
		a = strings.ToLower(a)
		if a == domain {
			return true
		}
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			// *.s covers x.s at any depth; a wildcard rule *.b needs b itself under *.s.
			if strings.HasSuffix(base, "."+suffix) || (wildcard && base == suffix) {
				return true
			}
		}
	}
	return false
}

// ValidateRuleHeaders checks one rule's headers: valid names, values without line breaks, and
// placeholders E2B can fill: ${e2b.secrets.<secret name>} and ${e2b.identity.tokens.<name>}
// for a token the sandbox declares in iam.
func ValidateRuleHeaders(headers map[string]string, iamTokens []string) error {
	if len(headers) == 0 {
		return fmt.Errorf("needs at least one header")
	}
	if len(headers) > MaxHeadersPerRule {
		return fmt.Errorf("has %d headers; E2B allows at most %d per rule", len(headers), MaxHeadersPerRule)
	}
	for _, name := range sortedKeys(headers) {
		if !HeaderNamePattern.MatchString(name) {
			return fmt.Errorf("header name %q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
		}
		if err := validatePlaceholders(headers[name], iamTokens); err != nil {
			return fmt.Errorf("header %q: %w", name, err)
		}
	}
	return nil
}

// validatePlaceholders checks every "${e2b." placeholder in a header value.
func validatePlaceholders(v string, iamTokens []string) error {
	if strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("the value must not contain line breaks or NUL")
	}
	rest := v
	for {
		i := strings.Index(rest, placeholderNamespace)
		if i < 0 {
			return nil
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return fmt.Errorf("placeholder %q has no closing '}'", rest[i:])
		}
		ref := rest[i+2 : i+end] // without "${" and "}"
		switch {
		case strings.HasPrefix(ref, secretPlaceholder):
			name := strings.TrimPrefix(ref, secretPlaceholder)
			if !SecretNamePattern.MatchString(name) {
				return fmt.Errorf("placeholder %q names no possible secret: a secret name is 1 to 128 letters, digits, '_' or '-'", "${"+ref+"}")
			}
		case strings.HasPrefix(ref, identityPlaceholder):
			name := strings.TrimPrefix(ref, identityPlaceholder)
			if !slices.Contains(iamTokens, name) {
				return fmt.Errorf("placeholder %q names the workload token %q, which the sandbox's iam does not declare", "${"+ref+"}", name)
			}
		default:
			return fmt.Errorf("placeholder %q is neither ${e2b.secrets.<name>} nor ${e2b.identity.tokens.<name>}", "${"+ref+"}")
		}
		rest = rest[i+end+1:]
	}
}

// ValidateEgressProxy applies E2B's rules for a SOCKS5 egress proxy: "host:port" and
// credentials of at most 255 bytes each (RFC 1929).
func ValidateEgressProxy(p EgressProxy) error {
	host, port, err := net.SplitHostPort(p.Address)
	if err != nil || host == "" {
		return fmt.Errorf("address %q must be host:port, such as \"proxy.example.com:1080\"", p.Address)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q must have a port between 1 and 65535", p.Address)
	}
	if len(p.Username) > MaxEgressProxyCred || len(p.Password) > MaxEgressProxyCred {
		return fmt.Errorf("username and password must be at most %d bytes each", MaxEgressProxyCred)
	}
	return ValidateEgressProxyCredentials(p.Username != "", p.Password != "")
}

// ValidateEgressProxyCredentials refuses a password without a username: SOCKS5 sends both
// together (RFC 1929), so a proxy handed a password alone sees no authentication offered.
func ValidateEgressProxyCredentials(hasUsername, hasPassword bool) error {
	if hasPassword && !hasUsername {
		return fmt.Errorf("a password needs a username (SOCKS5 authenticates both together)")
	}
	return nil
}

// ValidateRuleHeaderNames refuses two names of one header: HTTP header names are
// case-insensitive, so a rule with "Authorization" and "authorization" would send the
// destination one value or the other, varying by request.
func ValidateRuleHeaderNames(names []string) error {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	seen := make(map[string]string, len(sorted))
	for _, n := range sorted {
		if prev, ok := seen[strings.ToLower(n)]; ok {
			return fmt.Errorf("headers %q and %q name the same header (HTTP header names are case-insensitive, "+
				"so the destination would receive one value or the other); keep one of them", prev, n)
		}
		seen[strings.ToLower(n)] = n
	}
	return nil
}

// ValidateNetworkRules applies E2B's limits to a whole rule set.
func ValidateNetworkRules(rules map[string][]NetworkRule) error {
	if len(rules) > MaxRuleDomains {
		return fmt.Errorf("has rules for %d domains; E2B allows at most %d", len(rules), MaxRuleDomains)
	}
	for _, d := range RuleDomains(rules) {
		if n := len(rules[d]); n > MaxRulesPerDomain {
			return fmt.Errorf("domain %q has %d rules; E2B allows %d per domain", d, n, MaxRulesPerDomain)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
