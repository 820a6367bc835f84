package emulator

import (
	"encoding/base64"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
)

// ptyUntil reads a pty process's output until want appears.
func (ps *procStream) ptyUntil(out *strings.Builder, want string) {
	ps.t.Helper()
	timer := time.AfterFunc(10*time.Second, func() { _ = ps.resp.Body.Close() }) // ends a blocked read
	defer timer.Stop()
	for !strings.Contains(out.String(), want) {
		f, err := ps.next()
		if err != nil || f.flags&connectrpc.FlagEndStream != 0 {
			ps.t.Fatalf("no %q in the terminal output (within 10 s): %q (%v %v)", want, out.String(), f.msg, err)
		}
		ev, _ := f.msg["event"].(map[string]any)
		if d, ok := ev["data"].(map[string]any); ok {
			b, _ := base64.StdEncoding.DecodeString(d["pty"].(string))
			out.Write(b)
		}
	}
}

func TestPtyIsARealTerminalAndResizeReachesIt(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("pseudo-terminals need a Unix host")
	}
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	// The shell reports its terminal, then the size the kernel tells it on
	// SIGWINCH (its trap runs between reads), and ends on a line of input.
	script := `test -t 0 && test -t 1 && echo "tty:yes"; echo "size:$(stty size)"; trap 'echo "winch:$(stty size)"' WINCH; echo trapped; ` +
		`while :; do read -r -t 0.2 line && [ "$line" = end ] && exit 0; done`
	ps := c.openStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", script}},
		"pty":     map[string]any{"size": map[string]any{"cols": 80, "rows": 24}},
	}, nil)
	ps.expectStart()
	var out strings.Builder
	ps.ptyUntil(&out, "tty:yes")
	ps.ptyUntil(&out, "size:24 80")
	ps.ptyUntil(&out, "trapped")

	st, data := c.rpc(sb, "process.Process/Update", map[string]any{
		"process": map[string]any{"pid": ps.pid},
		"pty":     map[string]any{"size": map[string]any{"cols": 100, "rows": 30}},
	})
	wantStatus(t, "resize", st, data, http.StatusOK)
	ps.ptyUntil(&out, "winch:30 100")

	input := base64.StdEncoding.EncodeToString([]byte("end\n"))
	st, data = c.rpc(sb, "process.Process/SendInput", map[string]any{"process": map[string]any{"pid": ps.pid}, "input": map[string]any{"pty": input}})
	wantStatus(t, "send input", st, data, http.StatusOK)
	res := ps.collect()
	if res.end == nil || res.end["exitCode"] != nil {
		t.Fatalf("terminal end %v (stdout %q)", res.end, res.stdout)
	}
}
