package e2b

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRedirectsAreNotFollowed: an answer that redirects elsewhere is an
// error, and the other host never sees the API key or an access token.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		leaked.Store(r.Header.Get("X-API-Key") + r.Header.Get("X-Access-Token"))
		writeJSON(w, 200, `{}`)
	}))
	t.Cleanup(other.Close)
	redirect := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /sandboxes/isb1":                redirect,
		"DELETE /sandboxes/isb1":             redirect,
		"POST /filesystem.Filesystem/Stat":   redirect,
		"GET /files":                         redirect,
		"POST /files":                        redirect,
		"POST /process.Process/Start":        redirect,
		"GET /health":                        redirect,
		"POST /filesystem.Filesystem/Remove": redirect,
	})
	c := newTestClient(t, fastConfig(rs.URL))
	ctx := context.Background()
	envd := c.Envd(EnvdTarget{SandboxID: "isb1", AccessToken: "tok-secret"})
	calls := map[string]func() error{
		"get sandbox":  func() error { _, err := c.GetSandbox(ctx, "isb1"); return err },
		"kill sandbox": func() error { return c.KillSandbox(ctx, "isb1") },
		"stat":         func() error { _, err := envd.Stat(ctx, "/x"); return err },
		"remove":       func() error { return envd.Remove(ctx, "/x") },
		"read file":    func() error { _, err := envd.ReadFile(ctx, "/x", ReadOptions{}); return err },
		"write file": func() error {
			_, err := envd.WriteFile(ctx, "/x", strings.NewReader("data"), WriteOptions{})
			return err
		},
		"start process": func() error {
			_, err := envd.StartProcess(ctx, StartProcessRequest{Process: ProcessConfig{Cmd: "true"}})
			return err
		},
		"health": func() error { _, err := envd.Health(ctx); return err },
	}
	for name, call := range calls {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "redirected to") || IsNotFound(err) || IsSandboxNotRunning(err) {
			t.Errorf("%s: %v; want an error that names the redirect", name, err)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the redirect target got %d requests (headers %q)", n, leaked.Load())
	}
	if n := rs.count("GET /sandboxes/isb1"); n != 1 {
		t.Fatalf("a redirect was retried: %d attempts", n)
	}
}

// TestLoggedURLsCarryNoCredentials: user information in api_url and signed
// query parameters never reach the logs or the errors.
func TestLoggedURLsCarryNoCredentials(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /sandboxes/isb1": answerJSON(500, `{"code":500,"message":"boom"}`),
	})
	log := &recordingLogger{}
	withCreds := strings.Replace(rs.URL, "http://", "http://alice:s3cr3t-pw@", 1)
	cfg := fastConfig(withCreds)
	cfg.SandboxURL = "http://bob:0th3r-pw@127.0.0.1:1"
	cfg.Logger = log
	c := newTestClient(t, cfg)
	_, err := c.GetSandbox(context.Background(), "isb1")
	_, err2 := c.Envd(EnvdTarget{SandboxID: "isb1"}).Stat(context.Background(), "/x")
	text := log.all() + "\n" + err.Error() + "\n" + err2.Error()
	for _, secret := range []string{"alice", "s3cr3t-pw", "bob", "0th3r-pw"} {
		if strings.Contains(text, secret) {
			t.Fatalf("%q leaked:\n%s", secret, text)
		}
	}
	if !strings.Contains(log.all(), "REDACTED@") {
		t.Fatalf("the logged URL should show that credentials were removed:\n%s", log.all())
	}
	if _, err := New(Config{APIURL: "http://carol:pw-in-config@h/?q=1"}); err == nil || strings.Contains(err.Error(), "pw-in-config") {
		t.Fatalf("a malformed api_url's error must not show its password: %v", err)
	}
	if got := RedactURLString("https://u:p@h/files?path=%2Fa&signature=v1_x"); strings.Contains(got, "u:p") || strings.Contains(got, "v1_x") {
		t.Fatalf("RedactURLString: %s", got)
	}
}

// TestEnvdsOwnErrorsAreNotRetried: envd's own answer for a bad path says the
// same every time, so it is returned at once; a gateway's 5xx is retried.
func TestEnvdsOwnErrorsAreNotRetried(t *testing.T) {
	plain := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "<html>gateway trouble</html>")
		}
	}
	var gateway atomic.Int32
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /files": answerJSON(500, `{"code":500,"message":"error opening file '/home/user/a/b': not a directory"}`),
		"POST /files": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			writeJSON(w, 500, `{"code":500,"message":"error creating parent directories: not a directory"}`)
		},
		"POST /filesystem.Filesystem/Stat": answerJSON(500, `{"code":"internal","message":"error statting '/x\u0000y': invalid argument"}`),
		"POST /filesystem.Filesystem/ListDir": func(w http.ResponseWriter, r *http.Request) {
			if gateway.Add(1) < 3 {
				plain(502)(w, r)
				return
			}
			writeJSON(w, 200, `{"entries":[]}`)
		},
		"POST /filesystem.Filesystem/MakeDir": plain(503),
	})
	c := newTestClient(t, fastConfig(rs.URL))
	ctx := context.Background()
	envd := c.Envd(EnvdTarget{SandboxID: "isb1"})
	if _, err := envd.ReadFile(ctx, "/home/user/a/b", ReadOptions{}); err == nil || rs.count("GET /files") != 1 {
		t.Fatalf("download of a bad path: %v after %d attempts, want 1", err, rs.count("GET /files"))
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
	if _, err := envd.WriteFileFrom(ctx, "/home/user/a/b/c", open, WriteOptions{}); err == nil || rs.count("POST /files") != 1 {
		t.Fatalf("upload to a bad path: %v after %d attempts, want 1", err, rs.count("POST /files"))
	}
	if _, err := envd.Stat(ctx, "/x\x00y"); err == nil || rs.count("POST /filesystem.Filesystem/Stat") != 1 {
		t.Fatalf("stat of a bad path: %v after %d attempts, want 1", err, rs.count("POST /filesystem.Filesystem/Stat"))
	}
	if _, err := envd.ListDir(ctx, "/", 1); err != nil || rs.count("POST /filesystem.Filesystem/ListDir") != 3 {
		t.Fatalf("a gateway's 502 must be retried: %v after %d attempts", err, rs.count("POST /filesystem.Filesystem/ListDir"))
	}
	if _, err := envd.MakeDir(ctx, "/d"); err == nil || rs.count("POST /filesystem.Filesystem/MakeDir") != 4 {
		t.Fatalf("a gateway's 503 must be retried up to the limit: %v after %d attempts", err, rs.count("POST /filesystem.Filesystem/MakeDir"))
	}
}
