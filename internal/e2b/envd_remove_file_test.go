package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// RemoveFile deletes a regular file and refuses a directory, which keeps all it holds.
func TestEmulatorRemoveFileNeverRemovesADirectory(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	ctx := e.ctx
	for _, p := range []string{"/home/user/keep/inner.txt", "/home/user/plain.txt"} {
		if _, err := envd.WriteFile(ctx, p, strings.NewReader("x"), e2b.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	err := envd.RemoveFile(ctx, "/home/user/keep")
	if !e2b.IsNotAFile(err) || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("RemoveFile of a directory: %v, want a NotAFileError", err)
	}
	if _, err := envd.Stat(ctx, "/home/user/keep/inner.txt"); err != nil {
		t.Fatalf("the refused directory lost its content: %v", err)
	}

	if err := envd.RemoveFile(ctx, "~/plain.txt"); err != nil {
		t.Fatalf("RemoveFile of a file: %v", err)
	}
	if _, err := envd.Stat(ctx, "/home/user/plain.txt"); !e2b.IsNotFound(err) {
		t.Fatalf("file still there: %v", err)
	}
	if err := envd.RemoveFile(ctx, "/home/user/plain.txt"); err != nil {
		t.Fatalf("RemoveFile of a missing path must succeed: %v", err)
	}
}

// Removing a regular file costs one request (rm -f started through envd), and a relative path
// still reaches the file through the Stat that resolves it.
func TestEmulatorRemoveFileIsOneRequest(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	for _, p := range []string{"/home/user/a.txt", "/home/user/b.txt"} {
		if _, err := envd.WriteFile(e.ctx, p, strings.NewReader("x"), e2b.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.ResetCounters()
	if err := envd.RemoveFile(e.ctx, "/home/user/a.txt"); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.Counters().Requests; len(got) != 1 || got["envd /process.Process/Start"] != 1 {
		t.Fatalf("requests for one removal: %v, want one Process/Start", got)
	}
	if _, err := envd.Stat(e.ctx, "/home/user/a.txt"); !e2b.IsNotFound(err) {
		t.Fatalf("a.txt still there: %v", err)
	}
	if err := envd.RemoveFile(e.ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Stat(e.ctx, "/home/user/b.txt"); !e2b.IsNotFound(err) {
		t.Fatalf("b.txt still there: %v", err)
	}
}
