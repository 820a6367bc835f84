package egress

import (
	"net/netip"
	"strings"
)

// Admits reports whether a sandbox with allowOut and denyOut may reach host (a name or an IP
// address; addr is the address it resolved to, when known): an allow entry wins over a deny
// entry; without a matching deny entry everything is allowed. Deny entries are IPs or CIDR
// blocks; allow entries are those or domains ("*.x" for x's subdomains).
func Admits(allowOut, denyOut []string, host string, addr netip.Addr) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		addr = ip
	}
	for _, a := range allowOut {
		if matchesEntry(a, host, addr) {
			return true
		}
	}
	for _, d := range denyOut {
		if matchesEntry(d, "", addr) {
			return false
		}
		// A name whose address is not known is denied by a block of every address.
		if p, err := netip.ParsePrefix(d); err == nil && !addr.IsValid() && p.Bits() == 0 {
			return false
		}
	}
	return true
}

func matchesEntry(entry, host string, addr netip.Addr) bool {
	entry = strings.ToLower(entry)
	if p, err := netip.ParsePrefix(entry); err == nil {
		return addr.IsValid() && p.Contains(addr.Unmap())
	}
	if ip, err := netip.ParseAddr(entry); err == nil {
		return addr.IsValid() && ip == addr.Unmap()
	}
	if host == "" {
		return false
	}
	if suffix, ok := strings.CutPrefix(entry, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return host == entry
}
