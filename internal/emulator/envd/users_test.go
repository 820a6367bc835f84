package envd_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

func TestRootFilesLiveInRootsHomeAndBelongToRoot(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"secure": true})

	// A signed upload URL for root, used without any header (the SDK's
	// uploadUrl('hello.txt', { user: 'root' }) fetched by a browser).
	exp := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	sig := envd.FileSignature("hello.txt", "write", "root", sb.EnvdAccessToken, exp)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "blob")
	_, _ = io.WriteString(fw, "file content")
	_ = mw.Close()
	q := url.Values{"path": {"hello.txt"}, "username": {"root"}, "signature": {sig}, "signature_expiration": {exp}}
	req, _ := http.NewRequest("POST", c.Srv.SandboxURL()+"/files?"+q.Encode(), &form)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.HC.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `[{"path":"/root/hello.txt","name":"hello.txt","type":"file"}]`+"\n" {
		t.Fatalf("signed upload as root: %d %s", resp.StatusCode, body)
	}

	// Root sees it in its home, relative or absolute, and owns it.
	st, data := c.RPCAs(sb, "root", "filesystem.Filesystem/ListDir", map[string]any{"path": "", "depth": 1})
	emulatortest.WantStatus(t, "list root's home", st, data, http.StatusOK)
	var hello *emulatortest.EntryInfo
	for _, e := range emulatortest.Decode[struct{ Entries []emulatortest.EntryInfo }](t, data).Entries {
		if e.Name == "hello.txt" {
			hello = &e
		}
	}
	if hello == nil || hello.Path != "/root/hello.txt" || hello.Owner != "root" || hello.Group != "root" {
		t.Fatalf("root's home lists %s", data)
	}
	if e := c.Stat(sb, "/root"); e.Owner != "root" || e.Type != "FILE_TYPE_DIRECTORY" {
		t.Fatalf("/root: %+v", e)
	}
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/files?path=hello.txt&username=root", nil, emulatortest.EnvdHeaders(sb))
	if st != 200 || string(data) != "file content" {
		t.Fatalf("download as root: %d %q", st, data)
	}
	if st, _ := c.Download(sb, "hello.txt"); st != 404 {
		t.Fatalf("user's relative hello.txt: %d, want 404 (it is in /root)", st)
	}

	// Directories envd creates for root are root's; user's stay user's.
	st, data = c.RPCAs(sb, "root", "filesystem.Filesystem/MakeDir", map[string]any{"path": "made/deeper"})
	if st != 200 || !strings.Contains(string(data), `"path":"/root/made/deeper"`) || !strings.Contains(string(data), `"owner":"root"`) {
		t.Fatalf("makedir as root: %d %s", st, data)
	}
	if e := c.Stat(sb, "/root/made"); e.Owner != "root" {
		t.Fatalf("parent made for root: %+v", e)
	}
	st, data = c.Upload(sb, "/root/made/by-user.txt", strings.NewReader("u"), nil)
	emulatortest.WantStatus(t, "upload as user", st, data, http.StatusOK)
	if e := c.Stat(sb, "/root/made/by-user.txt"); e.Owner != "user" {
		t.Fatalf("file uploaded by user: %+v", e)
	}
	// Overwriting as user hands the file over, as envd's chown does.
	c.Upload(sb, "/root/hello.txt", strings.NewReader("mine now"), nil)
	if e := c.Stat(sb, "/root/hello.txt"); e.Owner != "user" {
		t.Fatalf("root's file overwritten by user: %+v", e)
	}
}

// TestFilesEnvdWritesBelongToTheUsersIDs: envd writes as root and then gives
// what it wrote to the request's user (chown): the kernel sees uid 1000 for
// user's uploads and folders, 0 for root's, and the user's own commands can
// change what was uploaded for them.
func TestFilesEnvdWritesBelongToTheUsersIDs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root on the host can give files another user's IDs")
	}
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	st, data := c.Upload(sb, "up/deeper/by-user.txt", strings.NewReader("u"), nil)
	emulatortest.WantStatus(t, "upload as user", st, data, http.StatusOK)
	st, data = c.RPCAs(sb, "root", "filesystem.Filesystem/MakeDir", map[string]any{"path": "/home/user/made-by-root"})
	emulatortest.WantStatus(t, "makedir as root", st, data, http.StatusOK)
	if !strings.Contains(string(data), `"owner":"root"`) {
		t.Fatalf("makedir as root reports %s", data)
	}
	got := c.MustRunAs(sb, "root", "cd /home/user && stat -c '%n %u:%g %U' up up/deeper up/deeper/by-user.txt made-by-root")
	want := "up 1000:1000 user\nup/deeper 1000:1000 user\nup/deeper/by-user.txt 1000:1000 user\nmade-by-root 0:0 root\n"
	if !c.Srv.PrivateRoots() {
		got = c.MustRunAs(sb, "root", "cd ~ && stat -c '%n %u:%g' up up/deeper up/deeper/by-user.txt made-by-root 2>&1")
		want = "up 1000:1000\nup/deeper 1000:1000\nup/deeper/by-user.txt 1000:1000\nmade-by-root 0:0\n"
	}
	if got != want {
		t.Fatalf("owners:\n%s\nwant\n%s", got, want)
	}
	c.MustRun(sb, "echo changed > ~/up/deeper/by-user.txt")
	if e := c.Stat(sb, "/home/user/up/deeper/by-user.txt"); e.Owner != "user" || e.Group != "user" {
		t.Fatalf("stat of user's upload: %+v", e)
	}
	if res := c.Run(sb, "touch ~/made-by-root/x"); !strings.Contains(res.Stderr, "Permission denied") {
		t.Fatalf("user wrote into root's folder: %q", res.Stderr)
	}
}
