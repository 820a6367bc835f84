package e2b_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// Names that a shell would split, expand or read as options reach rm as one argument: each
// removes exactly its own file and nothing beside it.
func TestEmulatorRemoveFileOddNames(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	names := []string{"with space.txt", `quo'te"s.txt`, "-rf", "--help", "-", "new\nline", "ünïcødé ✓.txt",
		"*", "$(touch pwned)", "`touch pwned`", "a;touch pwned", ".hidden"}
	const dir = "/home/user/odd"
	all := append([]string{"keep.txt"}, names...)
	for _, n := range all {
		if _, err := envd.WriteFile(e.ctx, dir+"/"+n, strings.NewReader(n), e2b.WriteOptions{}); err != nil {
			t.Fatalf("write %q: %v", n, err)
		}
	}
	for i, n := range names {
		e.srv.ResetCounters()
		if err := envd.RemoveFile(e.ctx, dir+"/"+n); err != nil {
			t.Fatalf("RemoveFile(%q): %v", n, err)
		}
		if got := e.srv.Counters().Requests; got["envd /filesystem.Filesystem/Stat"] != 0 {
			t.Errorf("RemoveFile(%q) fell back to envd's calls (%v): rm did not remove it", n, got)
		}
		if _, err := envd.Stat(e.ctx, dir+"/"+n); !e2b.IsNotFound(err) {
			t.Errorf("%q still there after RemoveFile: %v", n, err)
		}
		for _, other := range append([]string{"keep.txt"}, names[i+1:]...) {
			if _, err := envd.Stat(e.ctx, dir+"/"+other); err != nil {
				t.Fatalf("removing %q took %q with it: %v", n, other, err)
			}
		}
	}
	entries, err := envd.ListDir(e.ctx, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name != "keep.txt" {
		t.Errorf("left in %s: %+v, want keep.txt alone (and no file made by a command in a name)", dir, entries)
	}
}

// Through a symbolically linked parent the file in the link's target goes, and the link and
// its target directory stay; a link named as the file loses only the link.
func TestEmulatorRemoveFileThroughSymlinks(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	res, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: "mkdir -p ~/real/sub && echo f > ~/real/f.txt && echo s > ~/real/sub/s.txt" +
		" && ln -s ~/real ~/link && ln -s ~/real/sub ~/dirlink"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("setup: %v %+v", err, res)
	}
	if err := envd.RemoveFile(e.ctx, "/home/user/link/f.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user/real/f.txt"); !e2b.IsNotFound(err) {
		t.Errorf("the file behind the linked parent is still there: %v", err)
	}
	if err := envd.RemoveFile(e.ctx, "/home/user/dirlink"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/home/user/link", "/home/user/real/sub/s.txt"} {
		if _, err := envd.Stat(e.ctx, p); err != nil {
			t.Errorf("%s went too: %v", p, err)
		}
	}
	if _, err := envd.Stat(e.ctx, "/home/user/dirlink"); !e2b.IsNotFound(err) {
		t.Errorf("the link to a directory is still there: %v", err)
	}
}

// When rm cannot be started (a template without it, or envd refusing the process), a regular
// file is still removed through envd and a directory still refused.
func TestEmulatorRemoveFileWithoutRm(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	for _, p := range []string{"/home/user/d/inner.txt", "/home/user/f.txt"} {
		if _, err := envd.WriteFile(e.ctx, p, strings.NewReader("x"), e2b.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{400}, Routes: []string{"envd /process.Process/Start"}})
	if err := envd.RemoveFile(e.ctx, "/home/user/f.txt"); err != nil {
		t.Fatalf("RemoveFile without rm: %v", err)
	}
	if err := envd.RemoveFile(e.ctx, "/home/user/d"); !e2b.IsNotAFile(err) {
		t.Fatalf("RemoveFile of a directory without rm: %v, want a NotAFileError", err)
	}
	if e.srv.Counters().FaultsInjected < 2 {
		t.Fatal("the fault never reached the rm start")
	}
	e.srv.SetFaults(emulator.Faults{})
	if _, err := envd.Stat(e.ctx, "/home/user/f.txt"); !e2b.IsNotFound(err) {
		t.Errorf("f.txt still there: %v", err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user/d/inner.txt"); err != nil {
		t.Errorf("the refused directory lost its content: %v", err)
	}
}

// A file that may not be removed (here immutable, which even root cannot unlink) is an error
// that says so, not a refusal of a directory and not a success; the file stays. The flag is set
// from the host on the sandbox's own copy of the file under the emulator's data folder: the
// sandbox's root, in a user namespace of its own, may not set it on the host's disk.
func TestEmulatorRemoveFileNotPermitted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can make a file immutable (chattr +i)")
	}
	dataDir := t.TempDir()
	e := newEnvWith(t, emulator.Options{DataDir: dataDir})
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	if _, err := envd.WriteFile(e.ctx, "/home/user/locked.txt", strings.NewReader("x"), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var hostCopy string
	_ = filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "locked.txt" {
			hostCopy = p
			return filepath.SkipAll
		}
		return nil
	})
	if hostCopy == "" {
		t.Fatalf("no copy of locked.txt under the data folder %s", dataDir)
	}
	if out, err := exec.Command("chattr", "+i", hostCopy).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not available here (%v: %s), so no file can be made unremovable for root", err, strings.TrimSpace(string(out)))
	}
	defer func() {
		if out, err := exec.Command("chattr", "-i", hostCopy).CombinedOutput(); err != nil {
			t.Errorf("chattr -i: %v: %s", err, out)
		}
	}()
	err := envd.RemoveFile(e.ctx, "/home/user/locked.txt")
	if err == nil || e2b.IsNotAFile(err) || e2b.IsNotFound(err) {
		t.Fatalf("RemoveFile of an unremovable file: %v, want an error about the removal", err)
	}
	if msg := err.Error(); strings.Contains(msg, "/proc/") || strings.Contains(msg, "e2b-emulator") {
		t.Errorf("the error shows the emulator's host path: %v", err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user/locked.txt"); err != nil {
		t.Errorf("the file is gone: %v", err)
	}
}
