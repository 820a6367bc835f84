package envd_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestFilesAndCommandsShareTheFilesystem(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	// /files -> command, relative path resolves under /home/user.
	st, data := c.Upload(sb, "notes/a.txt", strings.NewReader("from files"), nil)
	emulatortest.WantStatus(t, "upload", st, data, http.StatusOK)
	if string(data) != `[{"path":"/home/user/notes/a.txt","name":"a.txt","type":"file"}]`+"\n" {
		t.Fatalf("upload response %s", data)
	}
	if c.Srv.Isolated() {
		if out := c.MustRun(sb, "cat /home/user/notes/a.txt"); out != "from files" {
			t.Fatalf("command read %q", out)
		}
	}
	if out := c.MustRun(sb, "cat ~/notes/a.txt"); out != "from files" {
		t.Fatalf("command read ~ %q", out)
	}
	// command -> /files, in /tmp too.
	c.MustRun(sb, `printf 'from command' > ~/b.txt; printf tmp > "${TMPDIR:-/tmp}/t.txt"`)
	if st, data := c.Download(sb, "/home/user/b.txt"); st != 200 || string(data) != "from command" {
		t.Fatalf("download: %d %q", st, data)
	}
	if st, data := c.Download(sb, "/tmp/t.txt"); st != 200 || string(data) != "tmp" {
		t.Fatalf("download /tmp: %d %q", st, data)
	}
	if st, data := c.Download(sb, "/home/user/missing"); st != 404 || !strings.Contains(string(data), "path '/home/user/missing' does not exist") {
		t.Fatalf("missing file: %d %s", st, data)
	}
	if st, data := c.Download(sb, "/home/user/notes"); st != 400 || !strings.Contains(string(data), "is a directory") {
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
	hdr := emulatortest.EnvdHeaders(sb)
	hdr["Content-Type"] = mw.FormDataContentType()
	req, _ := http.NewRequest("POST", c.Srv.SandboxURL()+"/files", &buf)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"path":"/home/user/m2.txt"`) {
		t.Fatalf("multipart: %d %s", resp.StatusCode, body)
	}
	if out := c.MustRun(sb, "cat ~/m1.txt ~/m2.txt"); out != "content of /home/user/m1.txtcontent of m2.txt" {
		t.Fatalf("multipart contents %q", out)
	}

	// Gzip both ways.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte("zip"), 1000))
	_ = zw.Close()
	st, data = c.Upload(sb, "/home/user/z.txt", &gz, map[string]string{"Content-Encoding": "gzip"})
	emulatortest.WantStatus(t, "gzip upload", st, data, http.StatusOK)
	if out := c.MustRun(sb, "wc -c < ~/z.txt"); strings.TrimSpace(out) != "3000" {
		t.Fatalf("gzip upload size %q", out)
	}
	req, _ = http.NewRequest("GET", c.Srv.SandboxURL()+"/files?path=z.txt", nil)
	for k, v := range emulatortest.EnvdHeaders(sb) {
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
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/files?path=z.txt", nil, map[string]string{
		emulatortest.HeaderSandboxID: sb.SandboxID, "Accept-Encoding": "br, identity;q=0",
	})
	emulatortest.WantStatus(t, "unacceptable encoding", st, data, http.StatusNotAcceptable)
}

func TestSandboxesHavePrivateHomeAndTmp(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	c.MustRun(a, `echo A > ~/same.txt; echo A > "${TMPDIR:-/tmp}/same.txt"`)
	c.MustRun(b, `echo B > ~/same.txt; echo B > "${TMPDIR:-/tmp}/same.txt"`)
	for _, tc := range []struct {
		sb   emulatortest.Sandbox
		want string
	}{{a, "A\nA\n"}, {b, "B\nB\n"}} {
		if out := c.MustRun(tc.sb, `cat ~/same.txt "${TMPDIR:-/tmp}/same.txt"`); out != tc.want {
			t.Fatalf("sandbox sees %q, want %q", out, tc.want)
		}
		if st, data := c.Download(tc.sb, "/home/user/same.txt"); st != 200 || string(data) != tc.want[:2] {
			t.Fatalf("download %d %q", st, data)
		}
	}
	// Paths outside /home/user and /tmp stay in the sandbox's own tree.
	st, data := c.Upload(a, "/opt/app/config", strings.NewReader("cfg"), nil)
	emulatortest.WantStatus(t, "upload /opt", st, data, http.StatusOK)
	if st, data := c.Download(a, "/opt/app/config"); st != 200 || string(data) != "cfg" {
		t.Fatalf("download /opt: %d %q", st, data)
	}
	if st, _ := c.Download(b, "/opt/app/config"); st != 404 {
		t.Fatalf("other sandbox sees /opt/app/config: %d", st)
	}
}

func TestFilesystemRPCs(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	st, data := c.RPC(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "dir/sub"})
	emulatortest.WantStatus(t, "makedir", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/home/user/dir/sub"`) || !strings.Contains(string(data), `"type":"FILE_TYPE_DIRECTORY"`) {
		t.Fatalf("makedir entry %s", data)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/MakeDir", map[string]any{"path": "/home/user/dir/sub"})
	if st != 409 || !strings.Contains(string(data), `"code":"already_exists"`) {
		t.Fatalf("makedir again: %d %s", st, data)
	}
	c.Upload(sb, "dir/sub/f.txt", strings.NewReader("12345"), map[string]string{"X-Metadata-Owner": "tests"})
	st, data = c.RPC(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "~/dir/sub/f.txt"})
	emulatortest.WantStatus(t, "stat", st, data, http.StatusOK)
	for _, want := range []string{`"name":"f.txt"`, `"type":"FILE_TYPE_FILE"`, `"path":"/home/user/dir/sub/f.txt"`, `"size":"5"`, `"mode":420`, `"permissions":"-rw-r--r--"`, `"owner":"user"`, `"metadata":{"owner":"tests"}`, `"modifiedTime":"`} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("stat %s lacks %s", data, want)
		}
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "/home/user/nope"})
	if st != 404 || !strings.Contains(string(data), `"code":"not_found"`) {
		t.Fatalf("stat missing: %d %s", st, data)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir", "depth": 1})
	emulatortest.WantStatus(t, "listdir depth 1", st, data, http.StatusOK)
	if strings.Contains(string(data), "f.txt") || !strings.Contains(string(data), `"path":"/home/user/dir/sub"`) {
		t.Fatalf("listdir depth 1 %s", data)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir", "depth": 2})
	emulatortest.WantStatus(t, "listdir depth 2", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/home/user/dir/sub/f.txt"`) {
		t.Fatalf("listdir depth 2 %s", data)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user/dir/sub/f.txt"})
	if st != 400 || !strings.Contains(string(data), "invalid_argument") {
		t.Fatalf("listdir on a file: %d %s", st, data)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/Move", map[string]any{"source": "dir/sub/f.txt", "destination": "/tmp/moved/g.txt"})
	emulatortest.WantStatus(t, "move", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"path":"/tmp/moved/g.txt"`) {
		t.Fatalf("move entry %s", data)
	}
	if out := c.MustRun(sb, `cat "${TMPDIR:-/tmp}/moved/g.txt"`); out != "12345" {
		t.Fatalf("moved content %q", out)
	}
	st, data = c.RPC(sb, "filesystem.Filesystem/Remove", map[string]any{"path": "/home/user/dir"})
	emulatortest.WantStatus(t, "remove", st, data, http.StatusOK)
	st, data = c.RPC(sb, "filesystem.Filesystem/Remove", map[string]any{"path": "/home/user/dir"})
	emulatortest.WantStatus(t, "remove missing", st, data, http.StatusOK)
	st, _ = c.RPC(sb, "filesystem.Filesystem/Stat", map[string]any{"path": "/home/user/dir"})
	if st != 404 {
		t.Fatalf("removed dir still there: %d", st)
	}
	// envd /envs and /metrics.
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/envs", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envs", st, data, http.StatusOK)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
	if st != 200 || !strings.Contains(string(data), `"cpu_count":2`) {
		t.Fatalf("envd metrics: %d %s", st, data)
	}
}

func TestWatchDir(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	ws := c.OpenStream(sb, "filesystem.Filesystem/WatchDir", map[string]any{"path": "/home/user"}, nil)
	f, err := ws.Next()
	if err != nil || f.Msg["start"] == nil {
		t.Fatalf("first watch message %v %v", f.Msg, err)
	}
	c.Upload(sb, "watched.txt", strings.NewReader("x"), nil)
	f, err = ws.Next()
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := f.Msg["filesystem"].(map[string]any)
	if ev["name"] != "watched.txt" || ev["type"] != "EVENT_TYPE_CREATE" {
		t.Fatalf("watch event %v", f.Msg)
	}
	st, data := c.RPC(sb, "filesystem.Filesystem/CreateWatcher", map[string]any{"path": "/home/user"})
	emulatortest.WantStatus(t, "create watcher", st, data, http.StatusOK)
	id := emulatortest.Decode[map[string]string](t, data)["watcherId"]
	c.Upload(sb, "second.txt", strings.NewReader("y"), nil)
	var events string // the watcher collects asynchronously, as envd's does
	emulatortest.Eventually(t, "watcher event for second.txt", func() bool {
		st, data = c.RPC(sb, "filesystem.Filesystem/GetWatcherEvents", map[string]any{"watcherId": id})
		events += string(data)
		return st == 200 && strings.Contains(events, `"name":"second.txt","type":"EVENT_TYPE_CREATE"`)
	})
	st, data = c.RPC(sb, "filesystem.Filesystem/RemoveWatcher", map[string]any{"watcherId": id})
	emulatortest.WantStatus(t, "remove watcher", st, data, http.StatusOK)
}

func TestSecureSandboxTokensAndSignatures(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"secure": true})
	plain := emulatortest.Sandbox{SandboxID: sb.SandboxID}
	// RPC without the token: 401 with E2B's body; health needs none.
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/process.Process/List", map[string]any{}, emulatortest.EnvdHeaders(plain))
	if st != 401 || !strings.Contains(string(data), envd.Unauthorized) {
		t.Fatalf("rpc without token: %d %s", st, data)
	}
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(plain))
	emulatortest.WantStatus(t, "health without token", st, data, http.StatusNoContent)
	st, data = c.Upload(sb, "/home/user/s.txt", strings.NewReader("secret"), nil)
	emulatortest.WantStatus(t, "upload with token", st, data, http.StatusOK)
	st, data = c.Download(plain, "/home/user/s.txt")
	if st != 401 || !strings.Contains(string(data), "missing signature") {
		t.Fatalf("download without token or signature: %d %s", st, data)
	}
	// Signed URLs work without any header, like the SDK's downloadUrl.
	exp := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	sig := envd.FileSignature("/home/user/s.txt", "read", "", sb.EnvdAccessToken, exp)
	signed := c.Srv.SandboxURL() + "/files?path=" + url.QueryEscape("/home/user/s.txt") + "&signature=" + url.QueryEscape(sig) + "&signature_expiration=" + exp
	st, data, _ = c.Request("GET", signed, nil, nil)
	if st != 200 || string(data) != "secret" {
		t.Fatalf("signed download: %d %q", st, data)
	}
	wsig := envd.FileSignature("up.txt", "write", "", sb.EnvdAccessToken, "")
	req, _ := http.NewRequest("POST", c.Srv.SandboxURL()+"/files?path=up.txt&signature="+url.QueryEscape(wsig), strings.NewReader("up"))
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.HC.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signed upload: %d", resp.StatusCode)
	}
	st, data, _ = c.Request("GET", strings.Replace(signed, "signature=v1_", "signature=v1_x", 1), nil, nil)
	emulatortest.WantStatus(t, "bad signature", st, data, http.StatusUnauthorized)
	old := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	expired := envd.FileSignature("/home/user/s.txt", "read", "", sb.EnvdAccessToken, old)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/files?path=%2Fhome%2Fuser%2Fs.txt&signature="+url.QueryEscape(expired)+"&signature_expiration="+old, nil, emulatortest.EnvdHeaders(plain))
	if st != 401 || !strings.Contains(string(data), "expired") {
		t.Fatalf("expired signature: %d %s", st, data)
	}
	// The API key is counted when it reaches envd.
	before := c.Srv.Counters().EnvdAPIKeySeen
	h := emulatortest.EnvdHeaders(sb)
	h[emulatortest.HeaderAPIKey] = c.Srv.APIKey()
	c.Request("GET", c.Srv.SandboxURL()+"/health", nil, h)
	if got := c.Srv.Counters().EnvdAPIKeySeen; got != before+1 {
		t.Fatalf("EnvdAPIKeySeen %d, want %d", got, before+1)
	}
}

func TestComposeFiles(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.Upload(sb, "p1", strings.NewReader("one,"), nil)
	c.Upload(sb, "p2", strings.NewReader("two"), nil)
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/files/compose", map[string]any{"source_paths": []string{"p1", "/home/user/p2"}, "destination": "out/all.txt"}, emulatortest.EnvdHeaders(sb))
	if st != 200 || !strings.Contains(string(data), `"path":"/home/user/out/all.txt"`) {
		t.Fatalf("compose: %d %s", st, data)
	}
	if st, data := c.Download(sb, "out/all.txt"); st != 200 || string(data) != "one,two" {
		t.Fatalf("composed: %d %q", st, data)
	}
	if st, _ := c.Download(sb, "p1"); st != 404 {
		t.Fatal("compose kept its sources")
	}
	st, _, _ = c.Request("POST", c.Srv.SandboxURL()+"/files/compose", map[string]any{"source_paths": []string{"nope"}, "destination": "x"}, emulatortest.EnvdHeaders(sb))
	if st != 404 {
		t.Fatalf("compose of a missing source: %d", st)
	}
}
