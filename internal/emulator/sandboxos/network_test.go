package sandboxos_test

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// TestSandboxesShareTheHostNetwork pins what doc.go says under "Network":
// a port one sandbox listens on is taken for every other sandbox ("Address
// already in use"), and the host reaches the server at 127.0.0.1:<port>.
// Should sandboxes get network namespaces of their own, this fails and the
// doc must change with it.
func TestSandboxesShareTheHostNetwork(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 on the host (sandboxes see the host's /usr) to listen on a port")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	c := emulatortest.Start(t, emulator.Options{})
	listen := fmt.Sprintf(`python3 -c 'import socket, sys, time
s = socket.socket()
try:
    s.bind(("127.0.0.1", %d))
except OSError as e:
    print(e.strerror, flush=True); sys.exit(3)
s.listen(); print("listening", flush=True); time.sleep(120)'`, port)
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	c.StartProcess(a, listen, nil, nil) // runs until the sandbox goes
	emulatortest.Eventually(t, "sandbox A listening", func() bool {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			_ = conn.Close()
		}
		return err == nil
	})
	res := c.Run(b, listen)
	if !strings.Contains(res.Stdout, "Address already in use") {
		t.Fatalf("sandbox B binding the same port: stdout %q stderr %q end %v", res.Stdout, res.Stderr, res.End)
	}
}
