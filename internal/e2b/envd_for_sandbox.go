package e2b

import (
	"context"
	"errors"
	"fmt"
)

// ErrSandboxPaused is returned by SandboxEnvd for a paused sandbox: envd is
// unreachable until the sandbox is resumed.
var ErrSandboxPaused = errors.New("sandbox is paused")

// SandboxEnvd returns an Envd for the sandbox acting as user ("" = the
// template's default user). It reads the sandbox from the control plane (for
// its envd access token and domain) only when this client has not already
// seen it created, read or resumed. A sandbox that is gone gives an IsNotFound error; a paused
// one an error wrapping ErrSandboxPaused.
func (c *Client) SandboxEnvd(ctx context.Context, sandboxID, user string) (*Envd, error) {
	a, ok := c.sandboxes.get(sandboxID)
	if !ok {
		// Use the answer itself: a concurrent kill may already have dropped
		// the cache entry this read just made.
		d, err := c.GetSandbox(ctx, sandboxID)
		if err != nil {
			return nil, err
		}
		a = accessOf(d)
	}
	if a.paused {
		return nil, fmt.Errorf("sandbox %q: %w; resume it to reach its files and processes", sandboxID, ErrSandboxPaused)
	}
	return c.Envd(EnvdTarget{SandboxID: sandboxID, AccessToken: a.token, Domain: a.domain, User: user}), nil
}
