package e2b

import "fmt"

// E2B's limits on network.httpsPorts: the ports of a sandbox that serve HTTPS, which E2B's
// proxy then reaches over TLS (without verifying the certificate, so self-signed ones work).
// The public URL is HTTPS either way. The envd port is always plain HTTP and cannot be listed.
const (
	MaxHTTPSPorts     = 128
	MinPort           = 1
	MaxPort           = 65535
	ReservedHTTPSPort = envdPort
)

// ValidateHTTPSPorts checks ports the way E2B does on create: at most MaxHTTPSPorts, each
// between MinPort and MaxPort, none twice, and not the envd port.
func ValidateHTTPSPorts(ports []int) error {
	if len(ports) > MaxHTTPSPorts {
		return fmt.Errorf("can have at most %d ports, got %d", MaxHTTPSPorts, len(ports))
	}
	seen := make(map[int]bool, len(ports))
	for _, p := range ports {
		switch {
		case p < MinPort || p > MaxPort:
			return fmt.Errorf("port %d is not between %d and %d", p, MinPort, MaxPort)
		case p == ReservedHTTPSPort:
			return fmt.Errorf("port %d is envd's, which E2B always reaches in plain HTTP", p)
		case seen[p]:
			return fmt.Errorf("port %d is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}
