package e2b

import (
	"context"
	"errors"
	"fmt"
)

// ErrSandboxPaused is returned by SandboxEnvd for a paused sandbox: envd is
// unreachable until the sandbox is resumed.
var ErrSandboxPaused = errors.New("sandbox is paused")

// SandboxEnvd looks the sandbox up on the control plane (for its envd access
// token and domain) and returns an Envd acting as user ("" = the template's
// default user). A sandbox that is gone gives an IsNotFound error; a paused
// one an error wrapping ErrSandboxPaused.
func (c *Client) SandboxEnvd(ctx context.Context, sandboxID, user string) (*Envd, error) {
	d, err := c.GetSandbox(ctx, sandboxID)
	if err != nil {
		return nil, err
	}
	if d.State == "paused" {
		return nil, fmt.Errorf("sandbox %q: %w; resume it to reach its files and processes", sandboxID, ErrSandboxPaused)
	}
	return c.Envd(EnvdTarget{SandboxID: sandboxID, AccessToken: d.EnvdAccessToken, Domain: d.Domain, User: user}), nil
}
