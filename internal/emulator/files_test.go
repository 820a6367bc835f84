package emulator

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

func (c *testClient) upload(sb createdSandbox, path string, body io.Reader, headers map[string]string) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest("POST", c.srv.SandboxURL()+"/files?path="+url.QueryEscape(path), body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	for k, v := range envdHeaders(sb) {
		req.Header.Set(k, v)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (c *testClient) download(sb createdSandbox, path string) (int, []byte) {
	c.t.Helper()
	st, data, _ := c.request("GET", c.srv.SandboxURL()+"/files?path="+url.QueryEscape(path), nil, envdHeaders(sb))
	return st, data
}

func TestFilesAndCommandsShareTheFilesystem(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	// /files -> command, relative path resolves under /home/user.
	st, data := c.upload(sb, "notes/a.txt", strings.NewReader("from files"), nil)
	wantStatus(t, "upload", st, data, http.StatusOK)
	if string(data) != `[{"path":"/home/user/notes/a.txt","name":"a.txt","type":"file"}]`+"\n" {
		t.Fatalf("upload response %s", data)
	}
	if c.srv.isolate {
		if out := c.mustRun(sb, "cat /home/user/notes/a.txt"); out != "from files" {
			t.Fatalf("command read %q", out)
		}
	}
	if out := c.mustRun(sb, "cat ~/notes/a.txt"); out != "from files" {
		t.Fatalf("command read ~ %q", out)
	}
	// command -> /files, in /tmp too.
	c.mustRun(sb, `printf 'from command' > ~/b.txt; printf tmp > "${TMPDIR:-/tmp}/t.txt"`)
	if st, data := c.download(sb, "/home/user/b.txt"); st != 200 || string(data) != "from command" {
		t.Fatalf("download: %d %q", st, data)
	}
	if st, data := c.download(sb, "/tmp/t.txt"); st != 200 || string(data) != "tmp" {
		t.Fatalf("download /tmp: %d %q", st, data)
	}
	if st, data := c.download(sb, "/home/user/missing"); st != 404 || !strings.Contains(string(data), "path '/home/user/missing' does not exist") {
		t.Fatalf("missing file: %d %s", st, data)
	}
	if st, data := c.download(sb, "/home/user/notes"); st != 400 || !strings.Contains(string(data), "is a directory") {
		t.Fatalf("directory: %d %s", st, data)
	}

	// Multipart with several files, filenames as paths.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range []string{"/home/user/m1.txt", "m2.txt"} {
		fw, err := mw.CreateFormFile("file", p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(fw, "content of %s", p)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	hdr := envdHeaders(sb)
	hdr["Content-Type"] = mw.FormDataContentType()
	req, _ := http.NewRequest("POST", c.srv.SandboxURL()+"/files", &buf)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"path":"/home/user/m2.txt"`) {
		t.Fatalf("multipart: %d %s", resp.StatusCode, body)
	}
	if out := c.mustRun(sb, "cat ~/m1.txt ~/m2.txt"); out != "content of /home/user/m1.txtcontent of m2.txt" {
		t.Fatalf("multipart contents %q", out)
	}

	// Gzip both ways.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte("zip"), 1000))
	_ = zw.Close()
	st, data = c.upload(sb, "/home/user/z.txt", &gz, map[string]string{"Content-Encoding": "gzip"})
	wantStatus(t, "gzip upload", st, data, http.StatusOK)
	if out := c.mustRun(sb, "wc -c < ~/z.txt"); strings.TrimSpace(out) != "3000" {
		t.Fatalf("gzip upload size %q", out)
	}
	req, _ = http.NewRequest("GET", c.srv.SandboxURL()+"/files?path=z.txt", nil)
	for k, v := range envdHeaders(sb) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err = (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("download not gzip-encoded: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || len(plain) != 3000 {
		t.Fatalf("gzip download: %d bytes, %v", len(plain), err)
	}
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/files?path=z.txt", nil, map[string]string{
		hdrSandboxID: sb.SandboxID, "Accept-Encoding": "br, identity;q=0",
	})
	wantStatus(t, "unacceptable encoding", st, data, http.StatusNotAcceptable)
}

func TestSandboxesHavePrivateHomeAndTmp(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	a, b := c.create(map[string]any{}), c.create(map[string]any{})
	c.mustRun(a, `echo A > ~/same.txt; echo A > "${TMPDIR:-/tmp}/same.txt"`)
	c.mustRun(b, `echo B > ~/same.txt; echo B > "${TMPDIR:-/tmp}/same.txt"`)
	for _, tc := range []struct {
		sb   createdSandbox
		want string
	}{{a, "A\nA\n"}, {b, "B\nB\n"}} {
		if out := c.mustRun(tc.sb, `cat ~/same.txt "${TMPDIR:-/tmp}/same.txt"`); out != tc.want {
			t.Fatalf("sandbox sees %q, want %q", out, tc.want)
		}
		if st, data := c.download(tc.sb, "/home/user/same.txt"); st != 200 || string(data) != tc.want[:2] {
			t.Fatalf("download %d %q", st, data)
		}
	}
	// Paths outside /home/user and /tmp stay in the sandbox's own tree.
	st, data := c.upload(a, "/opt/app/config", strings.NewReader("cfg"), nil)
	wantStatus(t, "upload /opt", st, data, http.StatusOK)
	if st, data := c.download(a, "/opt/app/config"); st != 200 || string(data) != "cfg" {
		t.Fatalf("download /opt: %d %q", st, data)
	}
	if st, _ := c.download(b, "/opt/app/config"); st != 404 {
		t.Fatalf("other sandbox sees /opt/app/config: %d", st)
	}
}

func TestFilesystemRPCs(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	st, data := c.rpc(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "dir/sub"})
	wantStatus(t, "makedir", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/home/user/dir/sub"`) || !strings.Contains(string(data), `"type":"FILE_TYPE_DIRECTORY"`) {
		t.Fatalf("makedir entry %s", data)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "/home/user/dir/sub"})
	if st != 409 || !strings.Contains(string(data), `"code":"already_exists"`) {
		t.Fatalf("makedir again: %d %s", st, data)
	}
	c.upload(sb, "dir/sub/f.txt", strings.NewReader("12345"), map[string]string{"X-Metadata-Owner": "tests"})
	st, data = c.rpc(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "~/dir/sub/f.txt"})
	wantStatus(t, "stat", st, data, http.StatusOK)
	for _, want := range []string{`"name":"f.txt"`, `"type":"FILE_TYPE_FILE"`, `"path":"/home/user/dir/sub/f.txt"`, `"size":"5"`, `"mode":420`, `"permissions":"-rw-r--r--"`, `"owner":"user"`, `"metadata":{"owner":"tests"}`, `"modifiedTime":"`} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("stat %s lacks %s", data, want)
		}
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "/home/user/nope"})
	if st != 404 || !strings.Contains(string(data), `"code":"not_found"`) {
		t.Fatalf("stat missing: %d %s", st, data)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir", "depth": 1})
	wantStatus(t, "listdir depth 1", st, data, http.StatusOK)
	if strings.Contains(string(data), "f.txt") || !strings.Contains(string(data), `"path":"/home/user/dir/sub"`) {
		t.Fatalf("listdir depth 1 %s", data)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir", "depth": 2})
	wantStatus(t, "listdir depth 2", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/home/user/dir/sub/f.txt"`) {
		t.Fatalf("listdir depth 2 %s", data)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir/sub/f.txt"})
	if st != 400 || !strings.Contains(string(data), "invalid_argument") {
		t.Fatalf("listdir on a file: %d %s", st, data)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/Move", map[string]any{"source": "dir/sub/f.txt", "destination": "/tmp/moved/g.txt"})
	wantStatus(t, "move", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/tmp/moved/g.txt"`) {
		t.Fatalf("move entry %s", data)
	}
	if out := c.mustRun(sb, `cat "${TMPDIR:-/tmp}/moved/g.txt"`); out != "12345" {
		t.Fatalf("moved content %q", out)
	}
	st, data = c.rpc(sb, "filesystem.Filesystem/Remove", map[string]any{"path": "/home/user/dir"})
	wantStatus(t, "remove", st, data, http.StatusOK)
	st, data = c.rpc(sb, "filesystem.Filesystem/Remove", map[string]any{"path": "/home/user/dir"})
	wantStatus(t, "remove missing", st, data, http.StatusOK)
	st, _ = c.rpc(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "/home/user/dir"})
	if st != 404 {
		t.Fatalf("removed dir still there: %d", st)
	}
	// envd /envs and /metrics.
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/envs", nil, envdHeaders(sb))
	wantStatus(t, "envs", st, data, http.StatusOK)
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/metrics", nil, envdHeaders(sb))
	if st != 200 || !strings.Contains(string(data), `"cpu_count":2`) {
		t.Fatalf("envd metrics: %d %s", st, data)
	}
}

func TestWatchDir(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	ws := c.openStream(sb, "filesystem.Filesystem/WatchDir", map[string]any{"path": "/home/user"}, nil)
	f, err := ws.next()
	if err != nil || f.msg["start"] == nil {
		t.Fatalf("first watch message %v %v", f.msg, err)
	}
	c.upload(sb, "watched.txt", strings.NewReader("x"), nil)
	f, err = ws.next()
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := f.msg["filesystem"].(map[string]any)
	if ev["name"] != "watched.txt" || ev["type"] != "EVENT_TYPE_CREATE" {
		t.Fatalf("watch event %v", f.msg)
	}
	st, data := c.rpc(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "/home/user"})
	wantStatus(t, "create watcher", st, data, http.StatusOK)
	id := decode[map[string]string](t, data)["watcherId"]
	c.upload(sb, "second.txt", strings.NewReader("y"), nil)
	var events string // the watcher collects asynchronously, as envd's does
	eventually(t, "watcher event for second.txt", func() bool {
		st, data = c.rpc(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		events += string(data)
		return st == 200 && strings.Contains(events, `"name":"second.txt","type":"EVENT_TYPE_CREATE"`)
	})
	st, data = c.rpc(sb, "filesystem.Filesystem/RemoveWatcher", map[string]any{"watcherId": id})
	wantStatus(t, "remove watcher", st, data, http.StatusOK)
}

func TestSecureSandboxTokensAndSignatures(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{"secure": true})
	plain := createdSandbox{SandboxID: sb.SandboxID}
	// RPC without the token: 401 with E2B's body; health needs none.
	st, data, _ := c.request("POST", c.srv.SandboxURL()+"/process.Process/List", map[string]any{}, envdHeaders(plain))
	if st != 401 || !strings.Contains(string(data), envd.Unauthorized) {
		t.Fatalf("rpc without token: %d %s", st, data)
	}
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/health", nil, envdHeaders(plain))
	wantStatus(t, "health without token", st, data, http.StatusNoContent)
	st, data = c.upload(sb, "/home/user/s.txt", strings.NewReader("secret"), nil)
	wantStatus(t, "upload with token", st, data, http.StatusOK)
	st, data = c.download(plain, "/home/user/s.txt")
	if st != 401 || !strings.Contains(string(data), "missing signature") {
		t.Fatalf("download without token or signature: %d %s", st, data)
	}
	// Signed URLs work without any header, like the SDK's downloadUrl.
	exp := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	sig := envd.FileSignature("/home/user/s.txt", "read", "", sb.EnvdAccessToken, exp)
	signed := c.srv.SandboxURL() + "/files?path=" + url.QueryEscape("/home/user/s.txt") + "&signature=" + url.QueryEscape(sig) + "&signature_expiration=" + exp
	st, data, _ = c.request("GET", signed, nil, nil)
	if st != 200 || string(data) != "secret" {
		t.Fatalf("signed download: %d %q", st, data)
	}
	wsig := envd.FileSignature("up.txt", "write", "", sb.EnvdAccessToken, "")
	req, _ := http.NewRequest("POST", c.srv.SandboxURL()+"/files?path=up.txt&signature="+url.QueryEscape(wsig), strings.NewReader("up"))
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signed upload: %d", resp.StatusCode)
	}
	st, data, _ = c.request("GET", strings.Replace(signed, "signature=v1_", "signature=v1_x", 1), nil, nil)
	wantStatus(t, "bad signature", st, data, http.StatusUnauthorized)
	old := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	expired := envd.FileSignature("/home/user/s.txt", "read", "", sb.EnvdAccessToken, old)
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/files?path=%2Fhome%2Fuser%2Fs.txt&signature="+url.QueryEscape(expired)+"&signature_expiration="+old, nil, envdHeaders(plain))
	if st != 401 || !strings.Contains(string(data), "expired") {
		t.Fatalf("expired signature: %d %s", st, data)
	}
	// The API key is counted when it reaches envd.
	before := c.srv.Counters().EnvdAPIKeySeen
	h := envdHeaders(sb)
	h[hdrAPIKey] = c.srv.APIKey()
	c.request("GET", c.srv.SandboxURL()+"/health", nil, h)
	if got := c.srv.Counters().EnvdAPIKeySeen; got != before+1 {
		t.Fatalf("EnvdAPIKeySeen %d, want %d", got, before+1)
	}
}

func TestComposeFiles(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	c.upload(sb, "p1", strings.NewReader("one,"), nil)
	c.upload(sb, "p2", strings.NewReader("two"), nil)
	st, data, _ := c.request("POST", c.srv.SandboxURL()+"/files/compose", map[string]any{"source_paths": []string{"p1", "/home/user/p2"}, "destination": "out/all.txt"}, envdHeaders(sb))
	if st != 200 || !strings.Contains(string(data), `"path":"/home/user/out/all.txt"`) {
		t.Fatalf("compose: %d %s", st, data)
	}
	if st, data := c.download(sb, "out/all.txt"); st != 200 || string(data) != "one,two" {
		t.Fatalf("composed: %d %q", st, data)
	}
	if st, _ := c.download(sb, "p1"); st != 404 {
		t.Fatal("compose kept its sources")
	}
	st, _, _ = c.request("POST", c.srv.SandboxURL()+"/files/compose", map[string]any{"source_paths": []string{"nope"}, "destination": "x"}, envdHeaders(sb))
	if st != 404 {
		t.Fatalf("compose of a missing source: %d", st)
	}
}
