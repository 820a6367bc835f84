package sandboxos

import (
	_ "embed" // the stand-in script
	"os"
	"path/filepath"
)

// mcpGateway is the stand-in for E2B's MCP gateway (mcp_gateway.sh): it keeps the access token
// where the real gateway does and serves nothing.
//
//go:embed mcp_gateway.sh
var mcpGateway []byte

// MCPGatewayCommand is the command's name, as E2B's SDK runs it.
const MCPGatewayCommand = "mcp-gateway"

// WriteMCPGateway puts the stand-in at usr/local/bin/mcp-gateway under dir: the root of the
// mcp-gateway template's own files (a layer over the base root, or the sandbox's root directory
// where sandboxes share the host's root). No other template has it, as on E2B.
func WriteMCPGateway(dir string) error {
	bin := filepath.Join(dir, "usr", "local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	p := filepath.Join(bin, MCPGatewayCommand)
	if err := os.WriteFile(p, mcpGateway, 0o755); err != nil {
		return err
	}
	return os.Chmod(p, 0o755) // the umask must not narrow it
}
