package e2b

import "sync"

// sandboxCache keeps, for the life of a Client, what the control plane last
// said about how to reach each sandbox's envd: its access token, its domain
// and whether it is paused. Work that touches many sandboxes in a row (files,
// commands) then costs no extra control-plane read per operation. An entry is
// dropped when the sandbox is killed or the control plane answers 404; a stale
// entry can only make an envd call fail with "not running", which callers
// already handle.
type sandboxCache struct {
	mu sync.Mutex
	m  map[string]envdAccess
}

type envdAccess struct {
	token, domain string
	paused        bool
}

func (c *sandboxCache) put(id string, a envdAccess) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]envdAccess{}
	}
	c.m[id] = a
}

func (c *sandboxCache) get(id string) (envdAccess, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[id]
	return a, ok
}

func (c *sandboxCache) markPaused(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.m[id]; ok {
		a.paused = true
		c.m[id] = a
	}
}

func (c *sandboxCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// rememberSandbox records a create, connect or fork answer: the sandbox runs.
func (c *sandboxCache) rememberSandbox(sb *Sandbox) {
	if sb != nil && sb.SandboxID != "" && !sb.partial {
		c.put(sb.SandboxID, envdAccess{token: sb.EnvdAccessToken, domain: sb.Domain})
	}
}

// observe records the outcome of a read of sandbox id.
func (c *sandboxCache) observe(id string, d *SandboxDetail, err error) {
	switch {
	case err == nil && d != nil:
		c.put(id, accessOf(d))
	case IsNotFound(err):
		c.forget(id)
	}
}

// accessOf is what a sandbox read says about reaching its envd.
func accessOf(d *SandboxDetail) envdAccess {
	return envdAccess{token: d.EnvdAccessToken, domain: d.Domain, paused: d.Paused()}
}
