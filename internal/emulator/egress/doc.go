// Package egress is the emulator's stand-in for E2B's sandbox egress: the proxy every sandbox
// process gets as HTTP_PROXY and HTTPS_PROXY (proxy.go), the rules it applies (rules.go: E2B's
// limits, which rule applies to a host), admission by allowOut and denyOut (admit.go), the
// header placeholders it fills (placeholders.go), the SOCKS5 dialer for a sandbox's own
// egress proxy (socks5.go) and E2B's hyperloop server, which it answers itself (hyperloop.go).
// It keeps no state: a sandbox's settings come from the Policy the control plane hands the
// proxy for the credentials a request carries.
//
// What the proxy fills, and where: a request must carry a running sandbox's ID and egress token
// as its proxy credentials (407 otherwise, so a process on the host gets nothing through it).
// For a plain-HTTP request to a domain one of that sandbox's network.rules names (an exact
// domain first, else the longest "*." wildcard; never merged), the rule's headers are set, with
// ${e2b.secrets.<name>} filled with the secret's current value and ${e2b.identity.tokens.<name>}
// with a token minted per request; an unknown name fails the request (502) rather than send the
// placeholder on. Nothing else is filled: a placeholder a process writes into its own request is
// sent as written, to any destination. allowOut and denyOut decide which destinations are
// admitted (403 otherwise); with an egressProxy every connection goes through that SOCKS5 proxy.
// HTTPS goes through CONNECT as an opaque tunnel (admission and the SOCKS5 proxy apply, rules
// cannot: the emulator does not intercept TLS, while E2B's egress applies rules to HTTPS too).
//
// Its allowed imports are listed once, in the root package's layering_test.go.
package egress
