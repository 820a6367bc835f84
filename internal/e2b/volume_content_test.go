package e2b_test

import (
	"io"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

func openString(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}

func TestVolumeFilesWriteReadListRemove(t *testing.T) {
	e := newEnv(t)
	v, err := e.c.CreateVolume(e.ctx, "content-vol")
	if err != nil {
		t.Fatal(err)
	}
	files := e.c.VolumeFiles(v.VolumeID)
	mode := uint32(0o600)
	entry, err := files.WriteFile(e.ctx, "/a/b/c.txt", openString("hello"), e2b.VolumeOwnership{Mode: &mode})
	if err != nil {
		t.Fatal(err)
	}
	if entry.Path != "/a/b/c.txt" || entry.Size != 5 || entry.Mode != 0o600 || entry.Type != e2b.VolumeEntryFile {
		t.Fatalf("write answered %+v", entry)
	}
	body, err := files.ReadFile(e.ctx, "/a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(body)
	_ = body.Close()
	if string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
	list, err := files.List(e.ctx, "/a", 2)
	if err != nil || len(list) != 2 || list[0].Path != "/a/b" || list[1].Path != "/a/b/c.txt" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	mode = 0o640
	if st, err := files.SetOwnership(e.ctx, "/a/b/c.txt", e2b.VolumeOwnership{Mode: &mode}); err != nil || st.Mode != 0o640 {
		t.Fatalf("set mode = %+v, %v", st, err)
	}
	// A directory is never removed, let alone with what it holds.
	if err := files.RemoveFile(e.ctx, "/a/b"); !e2b.IsNotAFile(err) {
		t.Fatalf("remove a directory: %v", err)
	}
	if err := files.RemoveFile(e.ctx, "/a/b/c.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := files.Stat(e.ctx, "/a/b/c.txt"); !e2b.IsNotFound(err) {
		t.Fatalf("stat after remove: %v", err)
	}
	if err := files.RemoveFile(e.ctx, "/a/b/c.txt"); err != nil {
		t.Fatalf("remove a missing file: %v", err)
	}
	if _, err := files.Stat(e.ctx, "/a/b"); err != nil {
		t.Fatalf("the directory went with the file: %v", err)
	}
	if _, err := e.c.VolumeFiles("missing-volume").Stat(e.ctx, "/x"); !e2b.IsNotFound(err) {
		t.Fatalf("stat in a missing volume: %v", err)
	}
}

// A write that failed or got no answer is sent again: same path, same content, same outcome.
// (The emulator's LoseAnswer faults do not reach the volume-content routes.)
func TestVolumeFilesWriteRetried(t *testing.T) {
	e := newEnv(t)
	v, err := e.c.CreateVolume(e.ctx, "lost-vol")
	if err != nil {
		t.Fatal(err)
	}
	files := e.c.VolumeFiles(v.VolumeID)
	e.srv.SetFaults(emulator.Faults{ErrorRate: 0.5, DropRate: 0.3, Statuses: []int{502, 503},
		Routes: []string{"PUT /volumecontent/{id}/file"}, Seed: 2})
	if _, err = files.WriteFile(e.ctx, "/f.txt", openString("same"), e2b.VolumeOwnership{}); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Counters().Requests["PUT /volumecontent/{id}/file"]; n < 2 {
		t.Fatalf("the write was sent %d times, want it sent again after a failed attempt", n)
	}
	e.srv.SetFaults(emulator.Faults{})
	st, err := files.Stat(e.ctx, "/f.txt")
	if err != nil || st.Size != 4 {
		t.Fatalf("after the lost answers: %+v, %v", st, err)
	}
}

func TestCheckVolumePath(t *testing.T) {
	for p, want := range map[string]string{
		"/data/a.txt": "", "data/a.txt": "absolute", "/": "root", "/a/": "end with",
		"/a/../b": `".."`, "/a//b": "clean", "/a/./b": "clean", "/..": `".."`,
	} {
		if got := e2b.CheckVolumePath(p); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("CheckVolumePath(%q) = %q, want %q", p, got, want)
		}
	}
}
