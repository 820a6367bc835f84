package emulatortest

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/url"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// Files: envd's REST and filesystem RPCs, and the host side of a sandbox's files.

// Upload posts a file through envd's files route.
func (c *Client) Upload(sb Sandbox, path string, body io.Reader, headers map[string]string) (int, []byte) {
	c.T.Helper()
	req := c.envdRequest(sb, "/files?path="+url.QueryEscape(path), body, "application/octet-stream", headers)
	resp, err := c.HC.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// Download gets a file through envd's files route.
func (c *Client) Download(sb Sandbox, path string) (int, []byte) {
	c.T.Helper()
	st, data, _ := c.Request("GET", c.Srv.SandboxURL()+"/files?path="+url.QueryEscape(path), nil, EnvdHeaders(sb))
	return st, data
}

// EntryInfo is envd's EntryInfo as the filesystem RPCs answer it.
type EntryInfo = envd.EntryInfoJSON

// Stat calls Filesystem/Stat and decodes the entry.
func (c *Client) Stat(sb Sandbox, path string) EntryInfo {
	c.T.Helper()
	st, data := c.RPC(sb, "filesystem.Filesystem/Stat", map[string]any{"path": path})
	WantStatus(c.T, "stat "+path, st, data, http.StatusOK)
	return Decode[struct{ Entry EntryInfo }](c.T, data).Entry
}

// ListDir calls Filesystem/ListDir (depth 1) and returns the entries by name.
func (c *Client) ListDir(sb Sandbox, path string) map[string]EntryInfo {
	c.T.Helper()
	st, data := c.RPC(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": path, "depth": 1})
	WantStatus(c.T, "list "+path, st, data, http.StatusOK)
	out := map[string]EntryInfo{}
	for _, e := range Decode[struct{ Entries []EntryInfo }](c.T, data).Entries {
		out[e.Name] = e
	}
	return out
}

// SandboxHostPath is where the sandbox stores virtual on the host.
func (c *Client) SandboxHostPath(sb Sandbox, virtual string) string {
	c.T.Helper()
	return c.Machine(sb.SandboxID).HostPath(virtual)
}

// RPCAs calls a unary RPC as user (Basic auth, as the SDK's user option).
func (c *Client) RPCAs(sb Sandbox, user, method string, body any) (int, []byte) {
	c.T.Helper()
	h := EnvdHeaders(sb)
	h["Connect-Protocol-Version"] = "1"
	h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"))
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/"+method, body, h)
	return st, data
}
