package egress

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// E2B's limits on a sandbox's rules (its API answers 400 beyond them).
const (
	maxDomains        = 10
	maxRulesPerDomain = 1
	maxHeaders        = 20
	maxCredential     = 255
)

// Rule is one transform of the requests to a domain: headers set on each of them.
type Rule struct {
	Transform *Transform `json:"transform,omitempty"`
}

// Transform is what a rule changes.
type Transform struct {
	Headers map[string]string `json:"headers,omitempty"`
}

// Proxy is a SOCKS5 egress proxy. E2B never returns Password.
type Proxy struct {
	Address  string `json:"address"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
}

var domainPattern = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Normalize lower-cases the rule domains, as E2B does when it stores them.
func Normalize(rules map[string][]Rule) map[string][]Rule {
	if len(rules) == 0 {
		return nil
	}
	out := make(map[string][]Rule, len(rules))
	for d, rs := range rules {
		out[strings.ToLower(d)] = rs
	}
	return out
}

// Validate checks rules as E2B's API does; "" when they are fine.
func Validate(rules map[string][]Rule) string {
	if len(rules) > maxDomains {
		return fmt.Sprintf("network rules: at most %d domains are allowed, got %d", maxDomains, len(rules))
	}
	for _, d := range sortedDomains(rules) {
		if !domainPattern.MatchString(strings.ToLower(d)) {
			return fmt.Sprintf("network rules: invalid domain '%s'", d)
		}
		rs := rules[d]
		if len(rs) > maxRulesPerDomain {
			return fmt.Sprintf("network rules: at most %d rule per domain is allowed, '%s' has %d", maxRulesPerDomain, d, len(rs))
		}
		for _, r := range rs {
			if r.Transform != nil && len(r.Transform.Headers) > maxHeaders {
				return fmt.Sprintf("network rules: at most %d headers per rule are allowed, '%s' has %d", maxHeaders, d, len(r.Transform.Headers))
			}
		}
	}
	return ""
}

// ValidateProxy checks an egress proxy as E2B's API does; "" when it is fine.
func ValidateProxy(p *Proxy) string {
	if p == nil {
		return ""
	}
	host, port, err := net.SplitHostPort(p.Address)
	n, perr := strconv.Atoi(port)
	if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		return fmt.Sprintf("egressProxy.address '%s' must be host:port", p.Address)
	}
	if len(p.Username) > maxCredential || len(p.Password) > maxCredential {
		return fmt.Sprintf("egressProxy username and password must be at most %d bytes", maxCredential)
	}
	return ""
}

// Match returns the rules for host: an exact domain first, else the longest wildcard suffix
// ("*.example.com" covers its subdomains at any depth, not example.com); rule sets are never
// merged.
func Match(rules map[string][]Rule, host string) []Rule {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if rs, ok := rules[host]; ok {
		return rs
	}
	best := ""
	for d := range rules {
		suffix, ok := strings.CutPrefix(d, "*.")
		if ok && strings.HasSuffix(host, "."+suffix) && len(d) > len(best) {
			best = d
		}
	}
	if best == "" {
		return nil
	}
	return rules[best]
}

// Domains lists the rules' domains in order.
func Domains(rules map[string][]Rule) []string { return sortedDomains(rules) }

func sortedDomains(rules map[string][]Rule) []string {
	out := make([]string, 0, len(rules))
	for d := range rules {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
