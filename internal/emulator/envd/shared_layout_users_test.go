//go:build linux

package envd

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestSharedLayoutWrapperRunsAsTheUser: without a private root but with
// mount namespaces (as root, where overlayfs is unavailable), the wrapper
// that makes /home/user and /tmp private switches to the request's user
// with the host's setpriv, after its mounts. The sandbox's root, the
// host's, holds a container's capabilities only (sandboxos.DropCaps) and
// still owns its files.
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
	// CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP, NET_BIND_SERVICE,
	// SYS_CHROOT, AUDIT_WRITE, SETFCAP, as far as this process has them.
	want := fmt.Sprintf("%016x %016x\n", hostCapBnd(t)&0xa00405fb, hostCapBnd(t)&0xa00405fb)
	script := `echo "$(sed -n 's/^CapBnd:\t//p' /proc/self/status) $(sed -n 's/^CapEff:\t//p' /proc/self/status)"`
	if got := run("root", script); !strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(want))) {
		t.Fatalf("root's capabilities (want bounding and effective %q): %s", want, got)
	}
	owned := base64.StdEncoding.EncodeToString([]byte("1000\n"))
	if got := run("root", `touch /tmp/f && chown 1000 /tmp/f && stat -c %u /tmp/f`); !strings.Contains(got, owned) {
		t.Fatalf("root chowns its file: %s", got)
	}
}

// hostCapBnd is this process's capability bounding set.
func hostCapBnd(t *testing.T) uint64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "CapBnd:\t"); ok {
			n, err := strconv.ParseUint(v, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no CapBnd in /proc/self/status")
	return 0
}
