package e2b

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// lyingEnvd is a stand-in envd whose Stat, ListDir and file answers the test chooses: code in
// a sandbox can become root and replace envd, so every answer may lie.
type lyingEnvd struct {
	stat    http.HandlerFunc
	list    http.HandlerFunc
	file    http.HandlerFunc
	fileHit atomic.Int32
}

func (l *lyingEnvd) envd(t testing.TB) *Envd {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filesystem.Filesystem/Stat", func(w http.ResponseWriter, r *http.Request) { l.stat(w, r) })
	mux.HandleFunc("POST /filesystem.Filesystem/ListDir", func(w http.ResponseWriter, r *http.Request) { l.list(w, r) })
	mux.HandleFunc("GET /files", func(w http.ResponseWriter, r *http.Request) {
		l.fileHit.Add(1)
		l.file(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return newTestClient(t, fastConfig(srv.URL)).Envd(EnvdTarget{SandboxID: "sbxlying"})
}

func entryJSON(name, typ string, size int64) string {
	return fmt.Sprintf(`{"name":%q,"type":%q,"path":"/home/user/%s","size":"%d","mode":420}`, name, typ, name, size)
}

func statAnswer(entry string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"entry":` + entry + `}`))
	}
}

// A small gzip answer to Stat that inflates to 256 MiB is never inflated: the client asks for
// answers as they are, so net/http does not decode it behind the caller's back, and the call
// fails having allocated a few MiB at most.
func TestLyingEnvdGzipBombStat(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	_, _ = zw.Write([]byte(`{"entry":{"type":"FILE_TYPE_FILE","name":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 256 {
		_, _ = zw.Write(chunk)
	}
	_, _ = zw.Write([]byte(`"}}`))
	_ = zw.Close()
	var asked atomic.Value
	l := &lyingEnvd{stat: func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb.Bytes())
	}}
	envd := l.envd(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := envd.Stat(context.Background(), "/home/user/x")
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a gzip answer nobody asked for was decoded")
	}
	if got := asked.Load(); got != "identity" {
		t.Errorf("Stat asked for Accept-Encoding %q, want identity", got)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("gzip answer of %d bytes (256 MiB inflated): %v after %.1f MiB allocated", bomb.Len(), err, float64(alloc)/(1<<20))
	if alloc > 32<<20 {
		t.Fatalf("Stat allocated %.1f MiB for a %d byte answer", float64(alloc)/(1<<20), bomb.Len())
	}
}

// An endless answer to Stat ends the call at the unary cap instead of growing memory until
// the timeout.
func TestLyingEnvdEndlessStat(t *testing.T) {
	l := &lyingEnvd{stat: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"entry":{"name":"`))
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := l.envd(t).Stat(ctx, "/home/user/x")
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("endless Stat answer: %v", err)
	}
}

// A file whose announced size is 1 TiB is refused before a byte of it is asked for; one that
// announces a few bytes and streams more is cut at max_bytes and leaves nothing behind.
func TestLyingEnvdFileSizes(t *testing.T) {
	l := &lyingEnvd{
		stat: statAnswer(entryJSON("huge", "FILE_TYPE_FILE", 1<<40)),
		file: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(bytes.Repeat([]byte("x"), 1<<20)) },
	}
	envd := l.envd(t)
	dest := t.TempDir()
	_, err := envd.Download(context.Background(), "/home/user/huge", dest, DownloadOptions{MaxBytes: 4 << 30})
	if err == nil || !strings.Contains(err.Error(), "max_bytes") || l.fileHit.Load() != 0 {
		t.Fatalf("1 TiB file: %v (%d reads)", err, l.fileHit.Load())
	}
	_, err = envd.Download(context.Background(), "/home/user/huge", dest, DownloadOptions{})
	if err == nil || !strings.Contains(err.Error(), "free") || l.fileHit.Load() != 0 {
		t.Fatalf("1 TiB file without max_bytes: %v (%d reads)", err, l.fileHit.Load())
	}
	l.stat = statAnswer(entryJSON("small", "FILE_TYPE_FILE", 10))
	_, err = envd.Download(context.Background(), "/home/user/small", dest, DownloadOptions{MaxBytes: 1000})
	if err == nil || !strings.Contains(err.Error(), "max_bytes") {
		t.Fatalf("a file that streams past max_bytes: %v", err)
	}
	if entries, _ := os.ReadDir(dest); len(entries) != 0 {
		t.Fatalf("refused downloads left %v", entries)
	}
}

// A path that is a named pipe (envd's type unspecified) is refused at once, never read: it
// used to hang until the timeout.
func TestLyingEnvdPipeIsRefused(t *testing.T) {
	l := &lyingEnvd{stat: statAnswer(`{"name":"fifo","path":"/home/user/fifo","permissions":"prw-r--r--"}`),
		file: func(http.ResponseWriter, *http.Request) { select {} }}
	_, err := l.envd(t).Download(context.Background(), "/home/user/fifo", t.TempDir(), DownloadOptions{})
	if err == nil || !strings.Contains(err.Error(), "neither a regular file nor a folder") || l.fileHit.Load() != 0 {
		t.Fatalf("pipe: %v (%d reads)", err, l.fileHit.Load())
	}
}

// The listing is used as it arrives: the first file is copied while envd is still sending the
// listing (it was decoded whole, 427 MiB for 300,000 files, before the first copy), and one
// entry past its cap ends the download.
func TestLyingEnvdListingIsStreamed(t *testing.T) {
	firstRead := make(chan struct{}, 1)
	var readBeforeEnd atomic.Bool
	l := &lyingEnvd{
		stat: statAnswer(`{"name":"dir","type":"FILE_TYPE_DIRECTORY","path":"/home/user/dir"}`),
		list: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"entries":[{"name":"a","type":"FILE_TYPE_FILE","path":"/home/user/dir/a","size":"2"}`)
			w.(http.Flusher).Flush()
			select {
			case <-firstRead:
				readBeforeEnd.Store(true)
			case <-time.After(5 * time.Second):
			}
			_, _ = w.Write([]byte(`]}`))
		},
		file: func(w http.ResponseWriter, _ *http.Request) {
			select {
			case firstRead <- struct{}{}:
			default:
			}
			_, _ = w.Write([]byte("ok"))
		},
	}
	envd := l.envd(t)
	res, err := envd.Download(context.Background(), "/home/user/dir", t.TempDir(), DownloadOptions{})
	if err != nil || res.Files != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if !readBeforeEnd.Load() {
		t.Fatal("the first file was read only after the whole listing arrived")
	}
	huge, _ := json.Marshal(strings.Repeat("n", 2<<20))
	l.list = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, `{"entries":[{"name":%s,"type":"FILE_TYPE_FILE","path":"/home/user/dir/x"}]}`, huge)
	}
	if _, err := envd.Download(context.Background(), "/home/user/dir", filepath.Join(t.TempDir(), "2"), DownloadOptions{}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("an entry of 2 MiB: %v", err)
	}
}

// A managed file the sandbox swapped for one of another size (1 TiB, sparse) is found changed
// by its size alone: the check never reads it, and a file found so stays changed, unread, on
// the next check. A file of the known size with no stamp is still hashed.
func TestCheckFolderDecidesBySizeFirst(t *testing.T) {
	size := int64(1 << 40)
	l := &lyingEnvd{
		list: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"entries":[{"name":"big","type":"FILE_TYPE_FILE","path":"/home/user/dir/big","size":"%d"},`+
				`{"name":"same","type":"FILE_TYPE_FILE","path":"/home/user/dir/same","size":"2"}]}`, size)
		},
		file: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) },
	}
	envd := l.envd(t)
	known := map[string]RemoteFile{
		"big":  {Size: 6, SHA256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"},
		"same": {Size: 2, SHA256: "2689367b205c16ce32ed4200942b8b8b1e262dfc70d9bc9fbc77c49699a4f1df"},
	}
	rep, err := envd.CheckFolder(context.Background(), "/home/user/dir", known)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Files["big"]; !f.Unread || f.SHA256 != "" || f.Size != size || len(rep.Changed) != 1 {
		t.Fatalf("big: %+v, changed %v", f, rep.Changed)
	}
	if l.fileHit.Load() != 1 || rep.Files["same"].SHA256 == "" {
		t.Fatalf("%d reads (want 1: same, hashed), same %+v", l.fileHit.Load(), rep.Files["same"])
	}
	known["big"] = rep.Files["big"]
	if rep, err = envd.CheckFolder(context.Background(), "/home/user/dir", known); err != nil || !rep.Files["big"].Unread || l.fileHit.Load() != 2 {
		t.Fatalf("second check: %+v %v, %d reads", rep, err, l.fileHit.Load())
	}
}
