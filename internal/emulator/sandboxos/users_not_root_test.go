package sandboxos_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

const notRootChildEnv = "E2B_EMULATOR_NOT_ROOT_CHILD_DATA_DIR"

// TestNotRootChild is an emulator run by a user other than root (started by
// TestNotRootKeepsUserAndRefusesRoot): it cannot give commands another
// user's IDs, so user works, as the emulator's own user, and root is
// refused, naming root and why.
func TestNotRootChild(t *testing.T) {
	dataDir := os.Getenv(notRootChildEnv)
	if dataDir == "" {
		t.Skip("runs only as the emulator TestNotRootKeepsUserAndRefusesRoot starts as another user")
	}
	var logs strings.Builder
	c := emulatortest.Start(t, emulator.Options{DataDir: dataDir, Logf: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }})
	if !strings.Contains(logs.String(), "users are not separated: only user may be named (the emulator is not root on the host") {
		t.Errorf("the start-up log does not say users are not separated:\n%s", logs.String())
	}
	sb := c.Create(map[string]any{})
	if got := c.MustRun(sb, "id -u"); got == "" {
		t.Error("user's command printed nothing")
	}
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/process.Process/Start", map[string]any{"process": map[string]any{"cmd": "id"}},
		map[string]string{"Authorization": "Basic cm9vdDo=", "Content-Type": "application/json", "Connect-Protocol-Version": "1", "E2b-Sandbox-Id": sb.SandboxID, "E2b-Sandbox-Port": "49983"})
	if st != 403 || !strings.Contains(string(data), "user 'root' is not available in this emulator: the emulator is not root on the host") {
		t.Errorf("a command as root: %d %s", st, data)
	}
	if st, data := c.RPCAs(sb, "root", "filesystem.Filesystem/Stat", map[string]any{"path": "/tmp"}); st != 403 || !strings.Contains(string(data), "user 'root'") {
		t.Errorf("a file operation as root: %d %s", st, data)
	}
}

// TestNotRootKeepsUserAndRefusesRoot runs the emulator as nobody (uid
// 65534) in a process of its own.
func TestNotRootKeepsUserAndRefusesRoot(t *testing.T) {
	if os.Getenv(notRootChildEnv) != "" {
		t.Skip("this is the child")
	}
	if os.Geteuid() != 0 {
		t.Skip("starting the emulator as another user needs root")
	}
	t.Parallel()
	dir, err := os.MkdirTemp("", "e2b-not-root-") // t.TempDir's parent is closed to other users
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandboxos.RemoveTree(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// The test binary's folder is closed to other users: nobody runs a copy.
	bin := filepath.Join(dir, "emulator.test")
	if err := hostfs.CopyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	var out []byte
	// A fork elsewhere in this test binary may hold the copy open for writing a moment longer.
	for try := 0; try < 100; try++ {
		child := exec.Command(bin, "-test.run=^TestNotRootChild$", "-test.v", "-test.count=1")
		child.Dir = dir
		child.Env = append(os.Environ(), notRootChildEnv+"="+filepath.Join(dir, "data"), "HOME="+dir, "TMPDIR="+dir)
		child.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err = child.CombinedOutput(); !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNotRootChild") {
		t.Fatalf("the emulator as nobody: %v\n%s", err, out)
	}
}
