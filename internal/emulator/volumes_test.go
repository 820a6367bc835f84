package emulator

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

func (c *testClient) createVolume(name string) controlplane.VolumeAndTokenJSON {
	c.t.Helper()
	st, data, _ := c.api("POST", "/volumes", map[string]any{"name": name})
	wantStatus(c.t, "create volume", st, data, http.StatusCreated)
	return decode[controlplane.VolumeAndTokenJSON](c.t, data)
}

// volumeContent calls the volume-content API with ?path=p; what follows a "?" in p is more
// of the query.
func (c *testClient) volumeContent(v controlplane.VolumeAndTokenJSON, method, route, p string, body string) (int, []byte) {
	c.t.Helper()
	p, more, _ := strings.Cut(p, "?")
	if more != "" {
		more = "&" + more
	}
	req, err := http.NewRequest(method, c.srv.APIURL()+"/volumecontent/"+v.VolumeID+"/"+route+"?path="+url.QueryEscape(p)+more, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+v.Token)
	if body != "" {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, data
}

func testVolumesShared(t *testing.T, isolation string) {
	dataDir := t.TempDir()
	c := startTestServer(t, Options{DataDir: dataDir, Isolation: isolation})
	v := c.createVolume("shared-data")
	if v.Token == "" || !strings.HasPrefix(v.VolumeID, "vol") {
		t.Fatalf("create volume answered %+v", v)
	}
	st, data, _ := c.api("POST", "/volumes", map[string]any{"name": "shared-data"})
	wantStatus(t, "duplicate name", st, data, http.StatusBadRequest)
	st, data, _ = c.api("POST", "/volumes", map[string]any{"name": "bad name"})
	wantStatus(t, "bad name", st, data, http.StatusBadRequest)

	a := c.create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/mnt/shared"}}})
	b := c.create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/home/user/data"}}})
	if got := c.detail(a.SandboxID).VolumeMounts; len(got) != 1 || got[0].Path != "/mnt/shared" || got[0].Name != "shared-data" {
		t.Fatalf("detail volumeMounts = %+v", got)
	}
	// A command in one sandbox writes; the files API and a command in the other read.
	// Without namespaces only the cwd (not a literal path) reaches /mnt/shared.
	if res := c.startProcess(a, "echo from-a > note.txt", map[string]any{"cwd": "/mnt/shared"}, nil).collect(); res.end["exitCode"] != nil {
		t.Fatalf("write in a: %v %q", res.end, res.stderr)
	}
	if st, body := c.download(b, "/home/user/data/note.txt"); st != http.StatusOK || string(body) != "from-a\n" {
		t.Fatalf("files API in b: %d %q", st, body)
	}
	if out := c.mustRun(b, "cat ~/data/note.txt"); out != "from-a\n" {
		t.Fatalf("command in b read %q", out)
	}
	// The files API writes through to the volume as well.
	if st, body := c.upload(b, "/home/user/data/up.txt", strings.NewReader("via-files"), nil); st != http.StatusOK {
		t.Fatalf("upload: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "GET", "file", "/up.txt", ""); st != http.StatusOK || string(body) != "via-files" {
		t.Fatalf("volume content download: %d %q", st, body)
	}

	st, data, _ = c.api("DELETE", "/volumes/"+v.VolumeID, nil)
	wantStatus(t, "delete while mounted", st, data, http.StatusConflict)
	if !strings.Contains(string(data), a.SandboxID) {
		t.Fatalf("refusal does not name the sandboxes: %s", data)
	}
	for _, sb := range []createdSandbox{a, b} {
		st, data, _ = c.api("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		wantStatus(t, "kill", st, data, http.StatusNoContent)
	}

	// The volume survives its sandboxes and a restart with the same data dir.
	if err := c.srv.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := startTestServer(t, Options{DataDir: dataDir, Isolation: isolation})
	st, data, _ = c2.api("GET", "/volumes/"+v.VolumeID, nil)
	wantStatus(t, "get after restart", st, data, http.StatusOK)
	if got := decode[controlplane.VolumeAndTokenJSON](t, data); got.Token != v.Token || got.Name != "shared-data" {
		t.Fatalf("after restart: %+v", got)
	}
	d := c2.create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/opt/vol"}}})
	if isolation == "auto" {
		if out := c2.mustRun(d, "cat /opt/vol/note.txt /opt/vol/up.txt"); out != "from-a\nvia-files" {
			t.Fatalf("after restart a new sandbox reads %q", out)
		}
	}
	if st, body := c2.download(d, "/opt/vol/note.txt"); st != http.StatusOK || string(body) != "from-a\n" {
		t.Fatalf("files API after restart: %d %q", st, body)
	}
	// A snapshot does not carry the volume's files.
	st, data, _ = c2.api("POST", "/sandboxes/"+d.SandboxID+"/snapshots", map[string]any{})
	wantStatus(t, "snapshot", st, data, http.StatusCreated)
	snap := decode[struct {
		SnapshotID string `json:"snapshotID"`
	}](t, data)
	e := c2.create(map[string]any{"templateID": snap.SnapshotID})
	if st, _ := c2.download(e, "/opt/vol/note.txt"); st != http.StatusNotFound {
		t.Fatalf("a sandbox from the snapshot sees the volume's file: %d", st)
	}
	st, data, _ = c2.api("DELETE", "/sandboxes/"+d.SandboxID, nil)
	wantStatus(t, "kill d", st, data, http.StatusNoContent)
	st, data, _ = c2.api("DELETE", "/volumes/"+v.VolumeID, nil)
	wantStatus(t, "delete", st, data, http.StatusNoContent)
	if _, err := os.Stat(c2.srv.store.VolumeDir(v.VolumeID)); !os.IsNotExist(err) {
		t.Fatalf("volume directory left behind: %v", err)
	}
}

func TestVolumesSharedAcrossSandboxesAndRestarts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("bind mounts into sandbox namespaces need root; TestVolumesFallbackWithoutNamespaces covers the rest")
	}
	testVolumesShared(t, "auto")
}

func TestVolumesFallbackWithoutNamespaces(t *testing.T) {
	testVolumesShared(t, "none")
}

func TestVolumeMountValidation(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	c.createVolume("v1")
	for _, tc := range []struct {
		mounts []map[string]string
		want   string
	}{
		{[]map[string]string{{"name": "v1", "path": "data"}}, "must be absolute"},
		{[]map[string]string{{"name": "v1", "path": "/"}}, "cannot be mounted at /"},
		{[]map[string]string{{"name": "v1", "path": "/a"}, {"name": "v1", "path": "/a/"}}, "more than once"},
		{[]map[string]string{{"name": "nope", "path": "/a"}}, "'nope' not found"},
	} {
		st, data, _ := c.api("POST", "/sandboxes", map[string]any{"templateID": "base", "volumeMounts": tc.mounts})
		if st != http.StatusBadRequest || !strings.Contains(string(data), tc.want) {
			t.Errorf("mounts %v: %d %s, want 400 with %q", tc.mounts, st, data, tc.want)
		}
	}
}

func TestVolumeContentAPI(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	v := c.createVolume("content")
	other := c.createVolume("other")
	if st, _ := c.volumeContent(controlplane.VolumeAndTokenJSON{VolumeID: v.VolumeID, Token: other.Token}, "GET", "path", "/", ""); st != http.StatusUnauthorized {
		t.Fatalf("another volume's token: %d, want 401", st)
	}
	if st, body := c.volumeContent(v, "PUT", "file", "/a/b.txt", "x"); st != http.StatusNotFound {
		t.Fatalf("upload without parent: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "POST", "dir", "/a", ""); st != http.StatusCreated || !strings.Contains(string(body), `"type":"directory"`) {
		t.Fatalf("mkdir: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "PUT", "file", "/a/b.txt", "hello"); st != http.StatusCreated || !strings.Contains(string(body), `"size":5`) {
		t.Fatalf("upload: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "GET", "dir", "/", ""); st != http.StatusOK || strings.Contains(string(body), "b.txt") {
		t.Fatalf("list depth 1: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "GET", "path", "/a/b.txt", ""); st != http.StatusOK || !strings.Contains(string(body), `"path":"/a/b.txt"`) {
		t.Fatalf("stat: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "DELETE", "path", "/a", ""); st != http.StatusNoContent {
		t.Fatalf("remove: %d %s", st, body)
	}
	if st, _ := c.volumeContent(v, "GET", "file", "/a/b.txt", ""); st != http.StatusNotFound {
		t.Fatalf("download after remove: %d", st)
	}
}

// A sandbox that mounts a volume can plant a symbolic link to a host directory in it; the
// volume-content API resolves every path beneath the volume's directory, so nothing it writes,
// lists, reads, changes or deletes lies outside the volume. Links inside the volume still work.
func TestVolumeContentStaysInsideTheVolume(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	v := c.createVolume("escape-test")
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "host-secret.txt"), []byte("host-only"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := c.create(map[string]any{"volumeMounts": []map[string]string{{"name": "escape-test", "path": "/mnt/v"}}})
	if res := c.startProcess(sb, "ln -s "+host+" esc && mkdir sub && ln -s sub inside", map[string]any{"cwd": "/mnt/v"}, nil).collect(); res.end["exitCode"] != nil {
		t.Fatalf("plant links: %v %q", res.end, res.stderr)
	}
	refused := func(what string, st int, body []byte) {
		t.Helper()
		if st != http.StatusBadRequest || !strings.Contains(string(body), "out of the volume") {
			t.Errorf("%s: %d %s, want a refusal", what, st, body)
		}
	}
	st, body := c.volumeContent(v, "PUT", "file", "/esc/x", "pwned")
	refused("upload through the link", st, body)
	st, body = c.volumeContent(v, "PUT", "file", "/esc/deep/x?force=true", "pwned")
	refused("forced upload through the link", st, body)
	st, body = c.volumeContent(v, "POST", "dir", "/esc/made", "")
	refused("mkdir through the link", st, body)
	st, body = c.volumeContent(v, "GET", "dir", "/esc", "")
	refused("list through the link", st, body)
	st, body = c.volumeContent(v, "GET", "file", "/esc/host-secret.txt", "")
	refused("download through the link", st, body)
	st, body = c.volumeContent(v, "DELETE", "path", "/esc/host-secret.txt", "")
	refused("delete through the link", st, body)
	for _, name := range []string{"x", "deep", "made"} {
		if _, err := os.Lstat(filepath.Join(host, name)); err == nil {
			t.Errorf("the volume-content API created %s on the host", name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(host, "host-secret.txt")); err != nil || string(b) != "host-only" {
		t.Errorf("the host file: %q, %v", b, err)
	}
	// The link itself is the volume's: stat names it, a deep list does not descend into it.
	st, body = c.volumeContent(v, "GET", "path", "/esc", "")
	if st != http.StatusOK || !strings.Contains(string(body), `"type":"symlink"`) {
		t.Errorf("stat of the link: %d %s", st, body)
	}
	st, body = c.volumeContent(v, "GET", "dir", "/?depth=5", "")
	if st != http.StatusOK || strings.Contains(string(body), "host-secret") {
		t.Errorf("deep list: %d %s", st, body)
	}
	// A link that stays inside the volume is followed.
	if st, body := c.volumeContent(v, "PUT", "file", "/inside/y", "kept"); st != http.StatusCreated {
		t.Fatalf("upload through an inner link: %d %s", st, body)
	}
	if st, body := c.volumeContent(v, "GET", "file", "/sub/y", ""); st != http.StatusOK || string(body) != "kept" {
		t.Errorf("read back through the real directory: %d %q", st, body)
	}
}
