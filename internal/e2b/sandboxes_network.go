package e2b

import (
	"context"
	"net/http"
	"sort"
)

// NetworkConfig is a sandbox's egress and ingress configuration.
type NetworkConfig struct {
	AllowOut, DenyOut  []string
	AllowPublicTraffic *bool
	MaskRequestHost    string

	// Rules are E2B's per-domain egress transforms: the headers of each rule are set on every
	// request to the domain that leaves the sandbox, placeholders filled by E2B's egress.
	Rules map[string][]NetworkRule
	// EgressProxy tunnels the sandbox's outbound TCP through a SOCKS5 proxy. E2B never returns
	// its password, so a read has Password empty.
	EgressProxy *EgressProxy
	// HTTPSPorts are the sandbox's ports that serve HTTPS (ValidateHTTPSPorts). Set at create
	// only: E2B's network update cannot change them.
	HTTPSPorts []int
}

// NetworkRule is one transform of a domain's requests.
type NetworkRule struct {
	Headers map[string]string
}

// EgressProxy is a SOCKS5 proxy for a sandbox's egress ("host:port", RFC 1929 credentials).
type EgressProxy struct {
	Address, Username, Password string
}

// NetworkUpdate replaces a running sandbox's egress configuration as a whole: E2B clears
// every field the request leaves out, so it carries everything the sandbox should keep.
type NetworkUpdate struct {
	AllowOut, DenyOut   []string
	AllowInternetAccess *bool
	Rules               map[string][]NetworkRule
	EgressProxy         *EgressProxy
}

type wireNetwork struct {
	AllowOut           []string                     `json:"allowOut,omitempty"`
	DenyOut            []string                     `json:"denyOut,omitempty"`
	AllowPublicTraffic *bool                        `json:"allowPublicTraffic,omitempty"`
	MaskRequestHost    string                       `json:"maskRequestHost,omitempty"`
	Rules              map[string][]wireNetworkRule `json:"rules,omitempty"`
	EgressProxy        *wireEgressProxy             `json:"egressProxy,omitempty"`
	HTTPSPorts         []int                        `json:"httpsPorts,omitempty"`
}

type wireNetworkRule struct {
	Transform *wireNetworkTransform `json:"transform,omitempty"`
}

type wireNetworkTransform struct {
	Headers map[string]string `json:"headers,omitempty"`
}

type wireEgressProxy struct {
	Address  string `json:"address"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
}

func (n *wireNetwork) toNetwork() *NetworkConfig {
	if n == nil {
		return nil
	}
	c := &NetworkConfig{AllowOut: n.AllowOut, DenyOut: n.DenyOut, AllowPublicTraffic: n.AllowPublicTraffic,
		MaskRequestHost: n.MaskRequestHost, Rules: fromWireRules(n.Rules), HTTPSPorts: n.HTTPSPorts}
	if p := n.EgressProxy; p != nil {
		c.EgressProxy = &EgressProxy{Address: p.Address, Username: p.Username, Password: p.Password}
	}
	return c
}

func fromNetwork(n *NetworkConfig) *wireNetwork {
	if n == nil {
		return nil
	}
	return &wireNetwork{AllowOut: n.AllowOut, DenyOut: n.DenyOut, AllowPublicTraffic: n.AllowPublicTraffic,
		MaskRequestHost: n.MaskRequestHost, Rules: toWireRules(n.Rules), EgressProxy: toWireProxy(n.EgressProxy),
		HTTPSPorts: n.HTTPSPorts}
}

func toWireRules(rules map[string][]NetworkRule) map[string][]wireNetworkRule {
	if len(rules) == 0 {
		return nil
	}
	out := make(map[string][]wireNetworkRule, len(rules))
	for domain, rs := range rules {
		w := make([]wireNetworkRule, len(rs))
		for i, r := range rs {
			w[i] = wireNetworkRule{Transform: &wireNetworkTransform{Headers: r.Headers}}
		}
		out[domain] = w
	}
	return out
}

func fromWireRules(rules map[string][]wireNetworkRule) map[string][]NetworkRule {
	if len(rules) == 0 {
		return nil
	}
	out := make(map[string][]NetworkRule, len(rules))
	for domain, rs := range rules {
		list := make([]NetworkRule, len(rs))
		for i, r := range rs {
			if r.Transform != nil {
				list[i].Headers = r.Transform.Headers
			}
		}
		out[domain] = list
	}
	return out
}

func toWireProxy(p *EgressProxy) *wireEgressProxy {
	if p == nil {
		return nil
	}
	return &wireEgressProxy{Address: p.Address, Username: p.Username, Password: p.Password}
}

// RuleDomains returns the domains of rules in order.
func RuleDomains(rules map[string][]NetworkRule) []string {
	out := make([]string, 0, len(rules))
	for d := range rules {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// UpdateSandboxNetwork is PUT /sandboxes/{id}/network.
func (c *Client) UpdateSandboxNetwork(ctx context.Context, id string, u NetworkUpdate) error {
	body := struct {
		AllowOut            []string                     `json:"allowOut,omitempty"`
		DenyOut             []string                     `json:"denyOut,omitempty"`
		AllowInternetAccess *bool                        `json:"allow_internet_access,omitempty"`
		Rules               map[string][]wireNetworkRule `json:"rules,omitempty"`
		EgressProxy         *wireEgressProxy             `json:"egressProxy,omitempty"`
	}{u.AllowOut, u.DenyOut, u.AllowInternetAccess, toWireRules(u.Rules), toWireProxy(u.EgressProxy)}
	_, err := c.callAPI(ctx, apiCall{
		op: "update sandbox network", sandboxID: id, subject: id, method: http.MethodPut,
		path: "/sandboxes/" + pathSeg(id) + "/network", class: retryIdempotent, body: body,
	})
	return err
}
