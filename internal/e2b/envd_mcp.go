package e2b

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// E2B's MCP gateway, as E2B's SDK runs it: E2B only stores a sandbox's mcp configuration; the
// client starts the gateway in the new sandbox (as root, with an access token of its own) and
// clients reach it on port 50005 with that token.
const (
	MCPPort             = 50005
	MCPTemplate         = "mcp-gateway" // what E2B's SDK starts a sandbox with mcp from when no template is given
	mcpTokenFile        = "/etc/mcp-gateway/.token"
	mcpGatewayStartTime = 2 * time.Minute
)

// MCPURL is the gateway's URL of a sandbox (https://50005-<id>.<domain>/mcp).
func MCPURL(sandboxID, domain string) string {
	return fmt.Sprintf("https://%d-%s.%s/mcp", MCPPort, sandboxID, domain)
}

// StartMCPGateway runs `mcp-gateway --config <config>` as root with a fresh access token, as E2B's
// SDK does after a create with mcp. The gateway keeps the token in /etc/mcp-gateway/.token, where
// ReadMCPToken finds it; it is not returned so that nothing stores it.
func (e *Envd) StartMCPGateway(ctx context.Context, config json.RawMessage) error {
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return err
	}
	res, err := e.asRoot().Exec(ctx, ExecRequest{
		Command: "mcp-gateway --config " + ShellQuote(string(config)),
		Env:     map[string]string{"GATEWAY_ACCESS_TOKEN": hex.EncodeToString(token)},
		Timeout: mcpGatewayStartTime,
	})
	if err != nil {
		return fmt.Errorf("start the MCP gateway: %w", err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("the MCP gateway did not start (exit code %d): %s", res.ExitCode, SafeText(strings.TrimSpace(res.Stderr)))
	}
	return nil
}

// ReadMCPToken reads the gateway's access token from the sandbox (as root).
func (e *Envd) ReadMCPToken(ctx context.Context) (string, error) {
	r, err := e.asRoot().ReadFile(ctx, mcpTokenFile, ReadOptions{})
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	return strings.TrimSpace(string(b)), err
}

// asRoot is the same envd, acting as root.
func (e *Envd) asRoot() *Envd {
	t := e.t
	t.User = "root"
	return e.c.Envd(t)
}
