package envd_test

import (
	"encoding/base64"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestPtyIsARealTerminalAndResizeReachesIt(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("pseudo-terminals need a Unix host")
	}
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	// The shell reports its terminal, then the size the kernel tells it on
	// SIGWINCH (its trap runs between reads), and ends on a line of input.
	script := `test -t 0 && test -t 1 && echo "tty:yes"; echo "size:$(stty size)"; trap 'echo "winch:$(stty size)"' WINCH; echo trapped; ` +
		`while :; do read -r -t 0.2 line && [ "$line" = end ] && exit 0; done`
	ps := c.OpenStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", script}},
		"pty":     map[string]any{"size": map[string]any{"cols": 80, "rows": 24}},
	}, nil)
	ps.ExpectStart()
	var out strings.Builder
	ps.PTYUntil(&out, "tty:yes")
	ps.PTYUntil(&out, "size:24 80")
	ps.PTYUntil(&out, "trapped")

	st, data := c.RPC(sb, "process.Process/Update", map[string]any{
		"process": map[string]any{"pid": ps.PID},
		"pty":     map[string]any{"size": map[string]any{"cols": 100, "rows": 30}},
	})
	emulatortest.WantStatus(t, "resize", st, data, http.StatusOK)
	ps.PTYUntil(&out, "winch:30 100")

	input := base64.StdEncoding.EncodeToString([]byte("end\n"))
	st, data = c.RPC(sb, "process.Process/SendInput", map[string]any{"process": map[string]any{"pid": ps.PID}, "input": map[string]any{"pty": input}})
	emulatortest.WantStatus(t, "send input", st, data, http.StatusOK)
	res := ps.Collect()
	if res.End == nil || res.End["exitCode"] != nil {
		t.Fatalf("terminal end %v (stdout %q)", res.End, res.Stdout)
	}
}
