package emulator

import (
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// What tests (through the emulatortest harness) may look at in a running emulator.

// Isolated reports whether commands run in mount namespaces of their own (private /home/user
// and /tmp); without them a sandbox's directory stands in for both.
func (s *Server) Isolated() bool { return s.isolate }

// PrivateRoots reports whether every sandbox has a private root filesystem.
func (s *Server) PrivateRoots() bool { return s.rootfs != nil }

// Machine is the machine of a live sandbox.
func (s *Server) Machine(sandboxID string) (*envd.Machine, bool) {
	_, m, ok := s.cp.Sandboxes().Get(sandboxID)
	return m, ok
}

// EgressURL is the egress proxy's address, without credentials ("" when it did not start).
func (s *Server) EgressURL() string {
	if s.egress == nil {
		return ""
	}
	return s.egress.URL()
}

// Store is the emulator's store of templates, builds, secrets, webhooks and volumes.
func (s *Server) Store() *store.Store { return s.store }
