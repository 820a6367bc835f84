//go:build linux

package envd

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSharedLayoutWrapperRunsAsTheUser: without a private root but with
// mount namespaces (as root, where overlayfs is unavailable), the wrapper
// that makes /home/user and /tmp private switches to the request's user
// with the host's setpriv, after its mounts.
func TestSharedLayoutWrapperRunsAsTheUser(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and the host's setpriv")
	}
	if st, err := os.Stat(VirtualHome); err != nil || !st.IsDir() {
		t.Skip("the host has no /home/user to mount the sandbox's home on (the emulator makes it at start in this layout)")
	}
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := Start(&Settings{Isolate: true, Setpriv: setpriv, Logf: t.Logf}, Config{ID: "ishared", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Destroy)
	run := func(user, script string) string {
		body, _ := json.Marshal(map[string]any{"process": map[string]any{"cmd": "/bin/sh", "args": []string{"-c", script}}})
		frame := append([]byte{0, 0, 0, 0, byte(len(body))}, body...)
		r := httptest.NewRequest("POST", "/process.Process/Start", strings.NewReader(string(frame)))
		r.Header.Set("Content-Type", "application/connect+json")
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":")))
		w := httptest.NewRecorder()
		sb.Serve(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", user, w.Code, w.Body)
		}
		return w.Body.String()
	}
	out := base64.StdEncoding.EncodeToString([]byte("1000 1000 /home/user ok\n"))
	if got := run("user", `echo "$(id -u) $(id -g) $HOME $(touch ~/mine && echo ok)"`); !strings.Contains(got, out) {
		t.Fatalf("user's command: %s", got)
	}
	if got := run("root", `id -u`); !strings.Contains(got, base64.StdEncoding.EncodeToString([]byte("0\n"))) {
		t.Fatalf("root's command: %s", got)
	}
}
