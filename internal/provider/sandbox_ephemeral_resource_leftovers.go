package provider

import (
	"context"
	"sync"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// openEphemeralSandboxes tracks the ephemeral sandboxes this provider process opened and has not
// killed yet. Terraform 1.11 and OpenTofu 1.12 skip the close of an ephemeral resource when a
// resource that uses it fails, so the process kills what is left when the CLI stops it.
var openEphemeralSandboxes = &sandboxRegistry{}

type sandboxRegistry struct {
	mu   sync.Mutex
	open map[string]*e2b.Client
}

func (r *sandboxRegistry) add(id string, client *e2b.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open == nil {
		r.open = map[string]*e2b.Client{}
	}
	r.open[id] = client
}

func (r *sandboxRegistry) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.open, id)
}

// killAll kills every tracked sandbox at once and returns how many are gone.
func (r *sandboxRegistry) killAll(ctx context.Context) int {
	r.mu.Lock()
	open := r.open
	r.open = nil
	r.mu.Unlock()

	var wg sync.WaitGroup
	var mu sync.Mutex
	gone := 0
	for id, client := range open {
		wg.Go(func() {
			if err := client.KillSandbox(ctx, id); err == nil || e2b.IsNotFound(err) {
				mu.Lock()
				gone++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return gone
}

// KillLeftoverEphemeralSandboxes kills the ephemeral sandboxes that were opened by this process
// and never closed. The provider's main calls it once the CLI has stopped the provider; ctx
// should be short, since the CLI kills the process about two seconds after asking it to stop.
func KillLeftoverEphemeralSandboxes(ctx context.Context) int {
	return openEphemeralSandboxes.killAll(ctx)
}
