package controlplane

import (
	"fmt"
	"net"
	"strings"

	"golang.org/x/net/idna"
)

// errPublicTrafficNeedsSecure is E2B's 400 for network.allowPublicTraffic false on a sandbox
// whose envd is not secured.
const errPublicTrafficNeedsSecure = "You cannot create a sandbox without public access unless you enable secure envd access via 'secure' flag."

// validateMaskRequestHost is E2B's check of network.maskRequestHost at create: a host with an
// optional port (${PORT} may stand for it), whose host name is a valid ASCII name under IDNA's
// display rules (no leading or trailing hyphen, no URL scheme).
func validateMaskRequestHost(mask string) string {
	if mask == "" {
		return ""
	}
	hostname, _, err := net.SplitHostPort(mask)
	if err != nil {
		if !strings.Contains(err.Error(), "missing port") {
			return "mask request host is not valid: " + mask
		}
		hostname = mask
	}
	ascii, err := idna.Display.ToASCII(hostname)
	if err != nil {
		return "mask request host is not valid: " + mask
	}
	if !strings.EqualFold(ascii, hostname) {
		return fmt.Sprintf("mask request host '%s' is not ASCII. Please use ASCII characters only.", hostname)
	}
	return ""
}
