package emulatortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// Lifecycle: pause, resume and raw control-plane calls.

// BootID is the boot ID the sandbox's commands see (with mount namespaces)
// or, without them, the one the emulator keeps for the sandbox.
func (c *Client) BootID(sb Sandbox) string {
	c.T.Helper()
	if c.Srv.Isolated() {
		return strings.TrimSpace(c.MustRun(sb, "cat /proc/sys/kernel/random/boot_id"))
	}
	s := c.Machine(sb.SandboxID)
	data, err := os.ReadFile(filepath.Join(s.Dir(), "boot_id"))
	if err != nil {
		c.T.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// PauseAndResume pauses the sandbox (with body) and connects to resume it.
func (c *Client) PauseAndResume(sb Sandbox, body map[string]any) {
	c.T.Helper()
	// A nil map would be sent as the JSON null, which E2B's spec refuses as a
	// pause body: no body at all is E2B's default pause.
	var payload any
	if body != nil {
		payload = body
	}
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", payload)
	WantStatus(c.T, "pause", st, data, http.StatusNoContent)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
	WantStatus(c.T, "connect", st, data, http.StatusCreated)
}

// Send is api without failing on a transport error: a lost answer is one.
func (c *Client) Send(method, path string, body any) (int, error) {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, c.Srv.APIURL()+path, bytes.NewReader(data))
	req.Header.Set(HeaderAPIKey, c.Srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HC.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// HostPID is the host's pid of the sandbox's process pid (the pid envd reports is the one the
// sandbox sees, in its own PID namespace), for ProcState; the test fails for a pid the sandbox
// does not list.
func (c *Client) HostPID(sb Sandbox, pid uint32) uint32 {
	c.T.Helper()
	host, _, ok := c.Machine(sb.SandboxID).HostProcess(pid)
	if !ok {
		c.T.Fatalf("sandbox %s lists no process %d", sb.SandboxID, pid)
	}
	return uint32(host)
}

// ProcState reads the state letter of the host's pid from /proc ("" when gone).
func ProcState(pid uint32) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// JSONHeader is the Content-Type of a JSON body.
var JSONHeader = map[string]string{"Content-Type": "application/json"}
