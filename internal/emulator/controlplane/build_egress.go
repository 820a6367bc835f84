package controlplane

import (
	"sync"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
)

// Build sandboxes reach the network as E2B's builds do: a RUN step that
// downloads through the egress proxy (HTTP_PROXY, which every sandbox
// process gets with its sandbox's credentials) goes out with no allow or
// deny list and no rules. The control plane never lists build sandboxes, so
// the proxy learns of them here, from the build sandbox's start until it is
// destroyed or sealed.

// buildSandboxSet holds the IDs of the build sandboxes alive now.
type buildSandboxSet struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (b *buildSandboxSet) add(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ids == nil {
		b.ids = map[string]struct{}{}
	}
	b.ids[id] = struct{}{}
}

func (b *buildSandboxSet) remove(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.ids, id)
}

func (b *buildSandboxSet) has(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.ids[id]
	return ok
}

// buildEgressPolicy is a build sandbox's: open, without rules to fill.
func buildEgressPolicy() *egress.Policy {
	none := func(string) (string, bool) { return "", false }
	return &egress.Policy{Lookup: egress.Lookup{Secret: none, Identity: none}}
}
