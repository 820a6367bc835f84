package e2b

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	pathpkg "path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A cached token that the API refuses is fetched again from the volume, once,
// and the token never reaches the logs.
func TestVolumeFilesTokenRefetchedAndRedacted(t *testing.T) {
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	logs := &recordingLogger{}
	c, err := New(Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Logger: logs,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := c.CreateVolume(ctx, "token-vol")
	if err != nil {
		t.Fatal(err)
	}
	files := c.VolumeFiles(v.VolumeID)
	volumeTokens.mu.Lock()
	volumeTokens.m[files.tokenKey()] = "stale.token"
	volumeTokens.mu.Unlock()
	if _, err := files.WriteFile(ctx, "/t.txt", func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }, VolumeOwnership{}); err != nil {
		t.Fatalf("write with a stale cached token: %v", err)
	}
	reqs := srv.Counters().Requests
	if n := reqs["GET /volumes/{id}"]; n != 1 {
		t.Errorf("the volume was read %d times for its token, want once after the refusal: %v", n, reqs)
	}
	if _, err := files.Stat(ctx, "/t.txt"); err != nil {
		t.Fatal(err)
	}
	if n := srv.Counters().Requests["GET /volumes/{id}"]; n != 1 {
		t.Errorf("the fresh token was not kept: the volume was read %d times", n)
	}
	all := logs.all()
	if all == "" || !strings.Contains(all, "/volumecontent/") {
		t.Fatalf("no volume-content request was logged: %s", all)
	}
	if strings.Contains(all, v.Token) || strings.Contains(all, "stale.token") {
		t.Fatalf("a volume token reached the logs:\n%s", all)
	}
}

// A refused volume token is not worded as a refused API key.
func TestVolumeContentErrorNamesTheVolumeToken(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.WriteHeader(http.StatusUnauthorized)
	_, _ = rec.WriteString(`{"code":"401","message":"invalid volume token"}`)
	err := volumeContentError("stat \"/a\" in volume \"v\"", rec.Result())
	if got := err.Error(); !strings.Contains(got, "the volume's token was rejected") || strings.Contains(got, "API key") {
		t.Fatalf("error reads %q", got)
	}
}

// E2B's spec gives the upload's force only the meaning "overwrite": against a
// server that creates no parents for an upload, the client creates them with
// the directory endpoint and sends the file again. The server below is a test
// double of that reading of the spec (the emulator creates parents itself).
func TestVolumeFilesWriteCreatesParentsWhenTheUploadDoesNot(t *testing.T) {
	var mu sync.Mutex
	dirs := map[string]bool{"/": true}
	var calls []string
	entry := func(w http.ResponseWriter, status int, p, typ string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"name":%q,"type":%q,"path":%q,"size":1,"mode":420,"uid":0,"gid":0,`+
			`"atime":"2026-01-01T00:00:00Z","mtime":"2026-01-01T00:00:00Z","ctime":"2026-01-01T00:00:00Z"}`, pathpkg.Base(p), typ, p)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, r.Method+" "+r.URL.Path)
		p := r.URL.Query().Get("path")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/volumes/vol1":
			_, _ = io.WriteString(w, `{"volumeID":"vol1","name":"v","token":"tok"}`)
		case r.Header.Get("Authorization") != "Bearer tok":
			w.WriteHeader(http.StatusUnauthorized)
		case r.Method == http.MethodPut && r.URL.Path == "/volumecontent/vol1/file":
			_, _ = io.Copy(io.Discard, r.Body)
			if !dirs[pathpkg.Dir(p)] {
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"code":"404","message":"path not found"}`)
				return
			}
			entry(w, http.StatusCreated, p, "file")
		case r.Method == http.MethodPost && r.URL.Path == "/volumecontent/vol1/dir" && r.URL.Query().Get("force") == "true":
			for d := p; d != "/"; d = pathpkg.Dir(d) {
				dirs[d] = true
			}
			entry(w, http.StatusCreated, p, "directory")
		default:
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{APIKey: "k", APIURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.VolumeFiles("vol1").WriteFile(context.Background(), "/a/b/c.txt",
		func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }, VolumeOwnership{})
	if err != nil || e.Path != "/a/b/c.txt" {
		t.Fatalf("write = %+v, %v (calls %v)", e, err, calls)
	}
	want := "GET /volumes/vol1,PUT /volumecontent/vol1/file,POST /volumecontent/vol1/dir,PUT /volumecontent/vol1/file"
	if got := strings.Join(calls, ","); got != want {
		t.Fatalf("calls %s, want %s", got, want)
	}
}
