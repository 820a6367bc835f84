package e2b_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func textFile(path, content string) e2b.UploadFile {
	return e2b.UploadFile{Path: path, Size: int64(len(content)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(content)), nil
	}}
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func readAll(t *testing.T, e *env, envd *e2b.Envd, p string) string {
	t.Helper()
	rc, err := envd.ReadFile(e.ctx, p, e2b.ReadOptions{})
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Many files go in few multipart requests, each file at its own path (odd names included),
// with the hash of what was sent.
func TestEmulatorWriteFilesBatches(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	var files []e2b.UploadFile
	want := map[string]string{}
	for i := range 600 {
		p := fmt.Sprintf("/home/user/app/d%d/f%03d.txt", i%7, i)
		want[p] = fmt.Sprintf("file %d\n", i)
	}
	want[`/home/user/app/odd "name" ü -x.txt`] = "quoted"
	for p, c := range want {
		files = append(files, textFile(p, c))
	}
	e.srv.ResetCounters()
	written, err := envd.WriteFiles(e.ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Counters().Requests["envd POST /files"]; n != 2 {
		t.Errorf("%d files took %d requests, want 2 (batches of 512)", len(files), n)
	}
	if len(written) != len(files) {
		t.Fatalf("%d written, want %d", len(written), len(files))
	}
	for i, w := range written {
		if w.Path != files[i].Path || w.SHA256 != hexSum(want[w.Path]) || w.Size != int64(len(want[w.Path])) {
			t.Fatalf("written %+v for %s", w, files[i].Path)
		}
	}
	for _, p := range []string{"/home/user/app/d3/f010.txt", `/home/user/app/odd "name" ü -x.txt`} {
		if got := readAll(t, e, envd, p); got != want[p] {
			t.Errorf("%s holds %q, want %q", p, got, want[p])
		}
	}
}

// A dropped batch is sent again from the start, each file opened again; a file that cannot be
// read stops the upload without a retry.
func TestWriteFilesRetriesABatchNotALocalFailure(t *testing.T) {
	var wrap *failFirst
	e := newEnv(t, func(cfg *e2b.Config) {
		wrap = &failFirst{next: cfg.HTTPClient.Transport, suffix: "/files", n: 1}
		cfg.HTTPClient = &http.Client{Transport: wrap}
	})
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	opens := 0
	f := textFile("/home/user/r.txt", "again")
	open := f.Open
	f.Open = func() (io.ReadCloser, error) { opens++; return open() }
	if _, err := envd.WriteFiles(e.ctx, []e2b.UploadFile{f, textFile("/home/user/s.txt", "s")}); err != nil {
		t.Fatal(err)
	}
	if opens != 2 {
		t.Fatalf("opened %d times, want 2 (a dropped request and its retry)", opens)
	}

	e.srv.ResetCounters()
	broken := e2b.UploadFile{Path: "/home/user/b.txt", Size: 1, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader("x"), errReader{})), nil
	}}
	_, err := envd.WriteFiles(e.ctx, []e2b.UploadFile{textFile("/home/user/ok.txt", "ok"), broken})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("upload of an unreadable file: %v", err)
	}
	if n := e.srv.Counters().Requests["envd POST /files"]; n > 1 {
		t.Fatalf("a local read failure was sent %d times", n)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// CheckFolder downloads only the files whose time changed at the same size, finds those of
// another size changed without reading them, and tells missing files and files replaced by a
// directory apart.
func TestEmulatorCheckFolder(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	const dir = "/home/user/app"
	contents := map[string]string{"a.txt": "a", "sub/b.txt": "b", "sub/c.txt": "c", "d.txt": "d", "e.txt": "e"}
	var files []e2b.UploadFile
	for p, c := range contents {
		files = append(files, textFile(dir+"/"+p, c))
	}
	if _, err := envd.WriteFiles(e.ctx, files); err != nil {
		t.Fatal(err)
	}
	stat, err := envd.StatFolder(e.ctx, dir, []string{"a.txt", "sub/b.txt", "sub/c.txt", "d.txt", "e.txt"})
	if err != nil || len(stat) != 5 {
		t.Fatalf("StatFolder: %v %v", stat, err)
	}
	known := map[string]e2b.RemoteFile{}
	for p, s := range stat {
		s.SHA256 = hexSum(contents[p])
		known[p] = s
	}
	res, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: "cd " + dir + " && echo changed > a.txt && sleep 0.01 && printf E > e.txt && rm sub/c.txt && rm d.txt && mkdir d.txt"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("edit: %v %+v", err, res)
	}
	rep, err := envd.CheckFolder(e.ctx, dir, known)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Hashed, []string{"e.txt"}) || rep.Files["e.txt"].SHA256 != hexSum("E") {
		t.Errorf("hashed %v, e.txt %+v: want only e.txt downloaded, with its new content", rep.Hashed, rep.Files["e.txt"])
	}
	if a := rep.Files["a.txt"]; !reflect.DeepEqual(rep.Changed, []string{"a.txt"}) || !a.Unread || a.SHA256 != "" || a.Size != 8 {
		t.Errorf("changed %v, a.txt %+v: want a.txt found changed by its size, unread", rep.Changed, a)
	}
	if rep.Files["sub/b.txt"].SHA256 != hexSum("b") {
		t.Errorf("unchanged b.txt: %+v", rep.Files["sub/b.txt"])
	}
	if !reflect.DeepEqual(rep.Missing, []string{"sub/c.txt"}) || !reflect.DeepEqual(rep.NotFiles, []string{"d.txt"}) {
		t.Errorf("missing %v, not files %v", rep.Missing, rep.NotFiles)
	}

	// A directory gone altogether: its files are missing, not an error.
	if err := envd.Remove(e.ctx, dir+"/sub"); err != nil {
		t.Fatal(err)
	}
	rep, err = envd.CheckFolder(e.ctx, dir, known)
	if err != nil || !reflect.DeepEqual(rep.Missing, []string{"sub/b.txt", "sub/c.txt"}) {
		t.Fatalf("after removing sub: %v, missing %v", err, rep.Missing)
	}
}

// Modes are set per file; removal never takes a directory, and empty directories go while
// others stay.
func TestEmulatorChmodRemoveFilesAndEmptyDirs(t *testing.T) {
	e := newEnv(t)
	envd := e.envd(e.create(t, e2b.CreateSandboxRequest{}))
	const dir = "/home/user/job"
	if _, err := envd.WriteFiles(e.ctx, []e2b.UploadFile{textFile(dir+"/run.sh", "#!/bin/sh"), textFile(dir+"/-n.txt", "n"),
		textFile(dir+"/x/y/z.txt", "z"), textFile(dir+"/keep/k.txt", "k"), textFile(dir+"/gone.txt", "g")}); err != nil {
		t.Fatal(err)
	}
	if err := envd.Chmod(e.ctx, dir, map[string]uint32{"run.sh": 0o755, "-n.txt": 0o600}); err != nil {
		t.Fatal(err)
	}
	st, err := envd.StatFolder(e.ctx, dir, []string{"run.sh", "-n.txt"})
	if err != nil || st["run.sh"].Mode != 0o755 || st["-n.txt"].Mode != 0o600 {
		t.Fatalf("modes after chmod: %+v %v", st, err)
	}

	missing, err := envd.MissingDirs(e.ctx, dir, e2b.DirsOf([]string{"x/y/z.txt", "new/deep/f", "keep/k.txt"}))
	if err != nil || !reflect.DeepEqual(missing, []string{"new", "new/deep"}) {
		t.Fatalf("MissingDirs: %v %v", missing, err)
	}

	res, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: "cd " + dir + " && rm gone.txt && mkdir -p keep/k.txt2 && rm keep/k.txt && mkdir keep/k.txt && touch keep/k.txt/inner"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("edit: %v %+v", err, res)
	}
	kept, err := envd.RemoveFiles(e.ctx, dir, []string{"run.sh", "-n.txt", "x/y/z.txt", "keep/k.txt", "gone.txt"})
	if err != nil || !reflect.DeepEqual(kept, []string{"keep/k.txt"}) {
		t.Fatalf("RemoveFiles: kept %v, %v", kept, err)
	}
	if _, err := envd.Stat(e.ctx, dir+"/keep/k.txt/inner"); err != nil {
		t.Fatalf("the directory that replaced a file lost its content: %v", err)
	}
	if err := envd.RemoveEmptyDirs(e.ctx, dir, []string{".", "x", "x/y", "keep"}); err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Stat(e.ctx, dir+"/x"); !e2b.IsNotFound(err) {
		t.Errorf("empty x/y and x not removed: %v", err)
	}
	if _, err := envd.Stat(e.ctx, dir+"/keep/k.txt2"); err != nil {
		t.Errorf("a directory holding something else was removed: %v", err)
	}
}

func TestDirsOf(t *testing.T) {
	got := e2b.DirsOf([]string{"a/b/c.txt", "a/d.txt", "e.txt", "f/g"})
	want := []string{".", "a", "f", "a/b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DirsOf = %q, want %q", got, want)
	}
}
