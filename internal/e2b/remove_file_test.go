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
